//===- CudnnGraphs.cpp - cuDNN SDPA graphs through cudnn-frontend ---------===//
//
// Contract in CudnnGraphs.h. The frontend is used in its dynamic-loading
// mode (NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING): every cuDNN call goes
// through the handle load() opens, so no libcudnn is linked.
//
// Built into the CUDA emulator (SPRT_CUDNN_DEVICELESS), where no GPU is,
// the same graphs are checked deviceless instead: the real libcudnn, given
// an H100's description (kH100 below) in place of a handle, validates each
// graph, lowers it to its operation graph and lists the engine configs its
// heuristics offer for sm_90. Finalizing a plan compiles kernels for a GPU,
// so no plan is built there: each shape's verdict is said on stderr, and a
// graph cuDNN accepts runs on the emulator's SDPA (runtime/cuda-emu,
// SprtEmuCudnn.h), one it refuses on the native kernels, as on a GPU.
//
//===----------------------------------------------------------------------===//

#include "CudnnGraphs.h"

#include <cuda_runtime.h>
#include <cudnn_frontend.h>
#include <dlfcn.h>
#ifdef SPRT_CUDNN_DEVICELESS
#include "SprtEmuCudnn.h"
#endif

#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

namespace fe = cudnn_frontend;

// The handle of the loaded libcudnn that the frontend's shims read.
void *cudnn_frontend::cudnn_dlhandle = nullptr;

namespace sprt::cuda::cudnn {
namespace {

enum Uid : int64_t {
  kQ = 1,
  kK,
  kV,
  kO,
  kStats,
  kBias,
  kSeed,
  kOffset,
  kDO,
  kDQ,
  kDK,
  kDV
};

#ifdef SPRT_CUDNN_DEVICELESS
constexpr bool kDeviceless = true;
#else
constexpr bool kDeviceless = false;
#endif

/// An H100 SXM5 80GB as cuDNN's device description (the keys of
/// CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION; cudaDeviceProp's values).
const char *const kH100 =
    R"({"deviceName":"NVIDIA H100 80GB HBM3","deviceVer":900,)"
    R"("driverVer":13000,"cudaDeviceId":0,"pciDeviceId":0,)"
    R"("multiProcessorCount":132,"warpSize":32,"maxThreadsPerBlock":1024,)"
    R"("maxThreadsPerSM":2048,"maxCtasPerSM":32,"regsPerBlock":65536,)"
    R"("maxRegistersPerSM":65536,"maxSharedMemoryPerBlock":49152,)"
    R"("maxSharedMemoryPerBlockOptin":232448,)"
    R"("reservedSharedMemoryPerBlock":1024,"l2CacheSize":52428800,)"
    R"("totalGlobalMem":85029158912,"smClockRateKHz":1980000,)"
    R"("memClockRateKHz":2619000,"isTccDriver":0,"supportCoopLaunch":1,)"
    R"("maxGridSize":[2147483647,65535,65535],"maxBlockSize":[1024,1024,64]})";
constexpr int32_t kH100Sm = 90;

struct Plan {
  Shape shape;
  bool backward = false;
  std::shared_ptr<fe::graph::Graph> graph; // null when it failed
  std::string error;
  int64_t workspace = 0;
};

struct State {
  std::mutex mutex;
  std::string loadError;
  bool loaded = false;
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::DeviceProperties> device; // deviceless: kH100
  std::vector<Plan> plans; // few shapes: a linear search is enough
};

State &state() {
  static State s;
  return s;
}

fe::DataType_t ioType(IoType t) {
  return t == IoType::BF16 ? fe::DataType_t::BFLOAT16 : fe::DataType_t::HALF;
}

/// A [S, B, heads, D] tensor as cuDNN's {B, heads, S, D}.
std::shared_ptr<fe::graph::Tensor_attributes>
sbhd(fe::graph::Graph &g, const char *name, int64_t uid, const Shape &s,
     int64_t heads, int64_t rows) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({s.B, heads, rows, s.D})
                      .set_stride({heads * s.D, s.D, s.B * heads * s.D, 1}));
}

void setSbhd(const std::shared_ptr<fe::graph::Tensor_attributes> &t,
             int64_t uid, const Shape &s, int64_t heads, int64_t rows) {
  t->set_output(true)
      .set_uid(uid)
      .set_dim({s.B, heads, rows, s.D})
      .set_stride({heads * s.D, s.D, s.B * heads * s.D, 1});
}

std::shared_ptr<fe::graph::Tensor_attributes>
scalar(fe::graph::Graph &g, const char *name, int64_t uid) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({1, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_data_type(fe::DataType_t::INT64));
}

std::shared_ptr<fe::graph::Tensor_attributes> statsTensor(fe::graph::Graph &g,
                                                          const Shape &s) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name("stats")
                      .set_uid(kStats)
                      .set_dim({s.B, s.heads, s.Sq, 1})
                      .set_stride({s.heads * s.Sq, s.Sq, 1, 1})
                      .set_data_type(fe::DataType_t::FLOAT));
}

/// Mask, bias and dropout options shared by the two directions.
template <typename Attributes>
void setMaskAndDropout(fe::graph::Graph &g, const Shape &s, Attributes &a) {
  a.set_attn_scale(float(1.0 / std::sqrt(double(s.D))));
  if (s.mask == Mask::Band)
    a.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
        .set_diagonal_band_right_bound(int(s.rightBound));
  if (s.mask == Mask::Bias)
    a.set_bias(g.tensor(fe::graph::Tensor_attributes()
                            .set_name("bias")
                            .set_uid(kBias)
                            .set_dim({s.B, 1, s.Sq, s.Sk})
                            .set_stride({s.Sq * s.Sk, s.Sq * s.Sk, s.Sk, 1})));
  if (s.dropout > 0.0f)
    a.set_dropout(s.dropout, scalar(g, "seed", kSeed),
                  scalar(g, "offset", kOffset));
}

/// An empty graph for the shape's types; deviceless, for kH100 (before its
/// nodes: each copies the graph's context).
std::shared_ptr<fe::graph::Graph> newGraph(const Shape &s) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(ioType(s.io))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  if (kDeviceless) {
    g->set_device_properties(state().device);
    g->set_sm_version(kH100Sm);
  }
  return g;
}

std::shared_ptr<fe::graph::Graph> forwardGraph(const Shape &s) {
  auto g = newGraph(s);
  auto q = sbhd(*g, "q", kQ, s, s.heads, s.Sq);
  auto k = sbhd(*g, "k", kK, s, s.kvHeads, s.Sk);
  auto v = sbhd(*g, "v", kV, s, s.kvHeads, s.Sk);
  auto a =
      fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(true);
  setMaskAndDropout(*g, s, a);
  auto [o, stats] = g->sdpa(q, k, v, a);
  setSbhd(o, kO, s, s.heads, s.Sq);
  stats->set_output(true)
      .set_uid(kStats)
      .set_data_type(fe::DataType_t::FLOAT)
      .set_dim({s.B, s.heads, s.Sq, 1})
      .set_stride({s.heads * s.Sq, s.Sq, 1, 1});
  return g;
}

std::shared_ptr<fe::graph::Graph> backwardGraph(const Shape &s) {
  auto g = newGraph(s);
  auto q = sbhd(*g, "q", kQ, s, s.heads, s.Sq);
  auto k = sbhd(*g, "k", kK, s, s.kvHeads, s.Sk);
  auto v = sbhd(*g, "v", kV, s, s.kvHeads, s.Sk);
  auto o = sbhd(*g, "o", kO, s, s.heads, s.Sq);
  auto dO = sbhd(*g, "dO", kDO, s, s.heads, s.Sq);
  auto a = fe::graph::SDPA_backward_attributes().set_name("sdpa_backward");
  setMaskAndDropout(*g, s, a);
  auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, dO, statsTensor(*g, s), a);
  setSbhd(dq, kDQ, s, s.heads, s.Sq);
  setSbhd(dk, kDK, s, s.kvHeads, s.Sk);
  setSbhd(dv, kDV, s, s.kvHeads, s.Sk);
  return g;
}

/// The deviceless verdict on a graph: what cuDNN said against it, or empty
/// where it accepts it (said on stderr, with the engines its heuristics
/// offer for kH100).
/// Heuristics run without a GPU; building an engine config does not (a
/// runtime-compiled engine needs libcuda), so configs refused for that
/// reason alone (CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
/// count as offered, and any other reason is a refusal.
std::string checkDeviceless(fe::graph::Graph &g, const Shape &s,
                            bool backward) {
  fe::error_t e = g.validate();
  if (e.is_good())
    e = g.build_operation_graph();
  int64_t configs = 0;
  std::set<std::string> engines;
  if (e.is_good())
    e = g.create_execution_plans({fe::HeurMode_t::A});
  if (e.is_good()) {
    configs = g.get_execution_plan_count();
  } else if (e.get_message().rfind("No valid engine configs", 0) == 0) {
    // One {"engineId":N,...} line per config, then its reasons.
    std::istringstream lines(e.get_message());
    bool onlyPrerequisites = true;
    for (std::string line; std::getline(lines, line);) {
      const std::string id = "{\"engineId\":";
      if (line.rfind(id, 0) == 0) {
        ++configs;
        engines.insert(line.substr(id.size(), line.find(',') - id.size()));
      } else if (line.rfind("Warning:", 0) == 0 &&
                 line.find("RUNTIME_PREREQUISITE_MISSING") == std::string::npos)
        onlyPrerequisites = false;
    }
    if (configs == 0 || !onlyPrerequisites)
      return e.get_message();
  } else {
    return e.get_message();
  }
  if (configs == 0)
    return "cuDNN's heuristics offer no engine for sm_90";
  std::string ids;
  for (const std::string &id : engines)
    ids += (ids.empty() ? "" : ", ") + id;
  std::fprintf(stderr,
               "sprt cuda: cuDNN %s accepts the graph for sm_90 (no GPU "
               "here): %s %s: %lld engine configs (engines %s)\n",
               fe::detail::get_backend_version_string().c_str(),
               backward ? "backward" : "forward", s.describe().c_str(),
               (long long)configs, ids.c_str());
  return {};
}

/// The shape's plan, built on first use (State's mutex held).
Plan &plan(State &st, const Shape &s, bool backward) {
  for (Plan &p : st.plans)
    if (p.backward == backward && p.shape == s)
      return p;
  Plan p;
  p.shape = s;
  p.backward = backward;
  try {
    auto g = backward ? backwardGraph(s) : forwardGraph(s);
    if (kDeviceless) {
      p.error = checkDeviceless(*g, s, backward);
      if (p.error.empty())
        p.graph = g;
    } else {
      fe::error_t e = g->build(st.handle, {fe::HeurMode_t::A});
      if (e.is_good())
        e = g->get_workspace_size(p.workspace);
      if (e.is_good())
        p.graph = g;
      else
        p.error = e.get_message();
    }
  } catch (const std::exception &ex) {
    p.error = ex.what();
  }
  if (!p.graph && p.error.empty())
    p.error = "cuDNN built no plan";
  if (!p.graph)
    p.error = std::string(backward ? "backward" : "forward") + " " +
              s.describe() + ": " + p.error;
  st.plans.push_back(std::move(p));
  return st.plans.back();
}

std::string run(const Shape &s, bool backward, const Tensors &t,
                cudaStream_t stream, WorkspaceFn workspace) {
  State &st = state();
  if (!load().empty())
    return load();
  std::lock_guard<std::mutex> lock(st.mutex);
  Plan &p = plan(st, s, backward);
  if (!p.graph)
    return p.error;
  std::unordered_map<int64_t, void *> pack{{kQ, const_cast<void *>(t.q)},
                                           {kK, const_cast<void *>(t.k)},
                                           {kV, const_cast<void *>(t.v)},
                                           {kO, t.o},
                                           {kStats, t.stats}};
  if (s.mask == Mask::Bias)
    pack[kBias] = const_cast<void *>(t.bias);
  if (s.dropout > 0.0f) {
    pack[kSeed] = t.seed;
    pack[kOffset] = t.offset;
  }
  if (backward) {
    pack[kDO] = const_cast<void *>(t.dO);
    pack[kDQ] = t.dq;
    pack[kDK] = t.dk;
    pack[kDV] = t.dv;
  }
#ifdef SPRT_CUDNN_DEVICELESS
  const cudaError_t e = sprt_emu::sdpa(s, backward, t, stream);
  return e == cudaSuccess
             ? std::string()
             : std::string("the emulator's SDPA: ") + cudaGetErrorString(e);
#endif
  // The workspace's allocation and the frontend may throw: the call then
  // falls back to the native kernels with the reason.
  try {
    void *ws = p.workspace > 0 ? workspace(size_t(p.workspace)) : nullptr;
    if (fe::detail::set_stream(st.handle, stream) != CUDNN_STATUS_SUCCESS)
      return "cudnnSetStream failed";
    fe::error_t e = p.graph->execute(st.handle, pack, ws);
    return e.is_good() ? std::string() : p.error = e.get_message();
  } catch (const std::exception &ex) {
    (void)cudaGetLastError();
    return std::string("cuDNN: ") + ex.what();
  }
}

} // namespace

bool Shape::operator==(const Shape &o) const {
  return B == o.B && heads == o.heads && kvHeads == o.kvHeads && Sq == o.Sq &&
         Sk == o.Sk && D == o.D && io == o.io && mask == o.mask &&
         rightBound == o.rightBound && dropout == o.dropout;
}

std::string Shape::describe() const {
  const char *masks[] = {"no mask", "band", "bias mask"};
  return std::string(io == IoType::BF16 ? "bf16" : "f16") +
         " B=" + std::to_string(B) + " heads=" + std::to_string(heads) + "/" +
         std::to_string(kvHeads) + " Sq=" + std::to_string(Sq) +
         " Sk=" + std::to_string(Sk) + " D=" + std::to_string(D) + " " +
         masks[int(mask)] +
         (mask == Mask::Band ? " +" + std::to_string(rightBound) : "") +
         (dropout > 0.0f ? " dropout " + std::to_string(dropout) : "");
}

const std::string &load() {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (st.loaded || !st.loadError.empty())
    return st.loadError;
  void *lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *why = dlerror();
    st.loadError = std::string("libcudnn.so.9 not found (") +
                   (why ? why : "dlopen failed") +
                   "): put cuDNN 9's lib directory on LD_LIBRARY_PATH";
    return st.loadError;
  }
  cudnn_frontend::cudnn_dlhandle = lib;
  try {
    const size_t v = fe::detail::get_backend_version();
    if (v < 90000) {
      st.loadError = "cuDNN " + std::to_string(v) + " is older than 9.0";
      return st.loadError;
    }
    if (kDeviceless) {
      auto device = std::make_shared<fe::DeviceProperties>();
      const std::string json = kH100;
      fe::error_t e =
          device->deserialize(std::vector<uint8_t>(json.begin(), json.end()));
      if (!e.is_good()) {
        st.loadError = "cuDNN refused the H100's description (deviceless "
                       "checks need cuDNN 9.11 or later): " +
                       e.get_message();
        return st.loadError;
      }
      st.device = device;
      st.loaded = true;
      return st.loadError;
    }
    cudnnStatus_t status = fe::detail::create_handle(&st.handle);
    if (status != CUDNN_STATUS_SUCCESS) {
      st.loadError = std::string("cudnnCreate failed: ") +
                     fe::detail::get_error_string(status);
      return st.loadError;
    }
  } catch (const std::exception &ex) {
    st.loadError = std::string("cuDNN: ") + ex.what();
    return st.loadError;
  }
  st.loaded = true;
  return st.loadError;
}

std::string version() {
  if (!state().loaded)
    return {};
  return fe::detail::get_backend_version_string() + " (frontend " +
         std::to_string(CUDNN_FRONTEND_MAJOR_VERSION) + "." +
         std::to_string(CUDNN_FRONTEND_MINOR_VERSION) + "." +
         std::to_string(CUDNN_FRONTEND_PATCH_VERSION) +
         (kDeviceless ? "; no GPU: its graphs checked deviceless for an H100 "
                        "and run by the CUDA emulator's SDPA"
                      : "") +
         ")";
}

static std::string prepare(const Shape &s, bool backward) {
  if (!load().empty())
    return load();
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  return plan(st, s, backward).error;
}

std::string prepareForward(const Shape &s) { return prepare(s, false); }
std::string prepareBackward(const Shape &s) { return prepare(s, true); }

std::string forward(const Shape &s, const Tensors &t, cudaStream_t stream,
                    WorkspaceFn workspace) {
  return run(s, false, t, stream, workspace);
}

std::string backward(const Shape &s, const Tensors &t, cudaStream_t stream,
                     WorkspaceFn workspace) {
  return run(s, true, t, stream, workspace);
}

int64_t planCount() {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  int64_t n = 0;
  for (const Plan &p : st.plans)
    n += p.graph ? 1 : 0;
  return n;
}

int64_t largestWorkspace() {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  int64_t m = 0;
  for (const Plan &p : st.plans)
    m = std::max(m, p.workspace);
  return m;
}

} // namespace sprt::cuda::cudnn

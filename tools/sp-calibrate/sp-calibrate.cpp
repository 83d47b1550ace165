//===- sp-calibrate.cpp - the rates sp-plan's cost model reads -----------===//
//
// Run under mpirun on R ranks (sp-plan --calibrate launches it): every rank
// calls the runtime's own entry points (the ones a compiled program calls,
// sprt/abi.def) at the same time, so each rate is what one of R ranks
// sharing this machine achieves. Built twice from this file: sp-calibrate
// with the CPU backend, and sp-calibrate-cuda with the CUDA backend (where
// CUDA is found), the same calls on device memory (sprt/device.h):
// - GEMMs (linear, grad input, grad weight) over a grid of shapes: f32 on
//   CPU ranks, bf16 and f32 (TF32 off) on a device;
// - causal attention, forward and backward (f32 on CPU ranks, bf16 as
//   stored on a device), and (on more than one rank) ring attention over
//   all ranks;
// - the memory-bound kernels (layer norm and its gradient, GELU and its
//   gradient, add, the bias gradient, the squared norm, AdamW; f32) and a
//   plain copy;
// - on more than one rank, all-reduce and all-gather on one mesh axis of all
//   R ranks, over sizes from 4 KiB to 4 MiB, with the bytes the runtime
//   counts as sent.
// Each figure is the time of a run of calls (the stream drained) over their
// number, the largest over the ranks (the slowest rank sets a step's pace),
// the median of three runs. Rank 0 prints the figures as JSON, with the
// backend, each device's memory over the ranks sharing it, and the peaks
// given by --peak PRECISION=FLOPS (a device's published dense peak, which
// the efficiencies are then taken against), and, where a node's CPU ranks
// outnumber its cores, how much faster a rank runs alone (idle ranks yield
// their cores); sp-plan --calibrate fits the
// cluster description and the calibration from them
// (tools/sp-plan/Calibrate.cpp).
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "sprt/abi.h"
#include "sprt/device.h"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// What this build measures on: the CPU backend's host memory, or a CUDA
/// device (the same calls on device pointers, the stream synchronized at
/// the end of each run of calls).
bool onDevice() { return std::strcmp(sprt_backend_name(), "cpu") != 0; }

/// Seconds of one call of `fn`: `reps` calls back to back after a barrier,
/// their time (the stream drained) over `reps`, the largest over the ranks
/// (every rank runs them at once). Timing the run of calls, not each call,
/// measures what each rank gets when ranks share cores: a run spans many of
/// the scheduler's time slices.
double timeCalls(const std::function<void()> &fn, int reps) {
  sprt_stream_synchronize(sprt_current_stream());
  MPI_Barrier(MPI_COMM_WORLD);
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i)
    fn();
  sprt_stream_synchronize(sprt_current_stream());
  double each = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              begin)
                    .count() /
                reps,
         slowest = 0;
  MPI_Allreduce(&each, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/// A warm-up call, then runs of about 0.1 s (0.02 s on a device, whose
/// times vary less): the median of three.
double measure(const std::function<void()> &fn) {
  double probe = timeCalls(fn, 1);
  double run = onDevice() ? 0.02 : 0.1;
  int reps = std::clamp(int(run / std::max(probe, 1e-7)), 2, 1000);
  double t[3];
  for (double &x : t)
    x = timeCalls(fn, reps);
  std::sort(t, t + 3);
  return t[1];
}

/// A buffer of the backend's memory (sprt/device.h), freed with it.
struct Buffer {
  void *p = nullptr;
  Buffer(int64_t n, int32_t dtype, float scale) {
    const int64_t bytes = std::max<int64_t>(n, 1) * elementBytes(dtype);
    p = sprt_device_alloc(bytes);
    if (!p) {
      std::fprintf(stderr,
                   "sp-calibrate: rank %d: out of memory (%lld "
                   "bytes)\n",
                   int(sprt_world_rank()), (long long)bytes);
      sprt::World::abort(); // every rank: the others would wait for this one
    }
    if (scale == 0)
      return; // zeroed
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      v[size_t(i)] = scale * float((i * 7919) % 1000) / 1000.0f;
    std::vector<uint16_t> h;
    const void *src = v.data();
    if (dtype != SPRT_DTYPE_F32) {
      h.resize(v.size());
      for (size_t i = 0; i < v.size(); ++i)
        h[i] = dtype == SPRT_DTYPE_BF16 ? sprt::dtype::f32ToBf16(v[i])
                                        : sprt::dtype::f32ToF16(v[i]);
      src = h.data();
    }
    sprt_memcpy_to_device(p, src, n * elementBytes(dtype),
                          sprt_current_stream());
    sprt_stream_synchronize(sprt_current_stream());
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { sprt_device_free(p); }
  float *f() const { return static_cast<float *>(p); }
  static int64_t elementBytes(int32_t dtype) {
    return dtype == SPRT_DTYPE_F32 ? 4 : 2;
  }
};

/// The precisions a GEMM and attention are measured in, by their cluster
/// names: f32 on CPU ranks, bf16 and f32 on a device (what its programs
/// run).
struct Precision {
  const char *name;
  int32_t dtype;
};
std::vector<Precision> gemmPrecisions() {
  if (onDevice())
    return {{"bf16", SPRT_DTYPE_BF16}, {"fp32", SPRT_DTYPE_F32}};
  return {{"fp32", SPRT_DTYPE_F32}};
}

/// A JSON list of objects, one per line.
struct JsonList {
  std::string text = "[";
  void item(const std::string &s) {
    if (text.size() > 1)
      text += ",\n    ";
    text += s;
  }
  std::string close() const { return text + "]"; }
};

std::string fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

/// The GEMMs' shapes: small ones on CPU ranks, a transformer's on a
/// device (a grid its rates vary over: wide and narrow, one wave and many).
std::vector<int64_t> gemmRows() {
  return onDevice() ? std::vector<int64_t>{2048, 8192}
                    : std::vector<int64_t>{256, 1024, 4096};
}
std::vector<int64_t> gemmCols() {
  return onDevice() ? std::vector<int64_t>{768, 2048, 8192}
                    : std::vector<int64_t>{64, 256, 1024};
}

std::string gemms() {
  JsonList out;
  const std::vector<int64_t> rows = gemmRows(), cols = gemmCols();
  const int64_t maxRows = *std::max_element(rows.begin(), rows.end()),
                maxCols = *std::max_element(cols.begin(), cols.end());
  for (const Precision &p : gemmPrecisions()) {
    // Filled once for the largest shape; each shape uses their fronts.
    const int32_t t = p.dtype;
    Buffer x(maxRows * maxCols, t, 1), w(maxCols * maxCols, t, 0.1f),
        dy(maxRows * maxCols, t, 0.1f), y(maxRows * maxCols, t, 0),
        dx(maxRows * maxCols, t, 0), dw(maxCols * maxCols, t, 0);
    for (int64_t m : rows)
      for (int64_t k : cols)
        for (int64_t n : cols) {
          struct {
            const char *op;
            std::function<void()> fn;
          } calls[] = {{"linear",
                        [&] {
                          sprt_linear_typed(x.p, t, w.p, t, nullptr, t, y.p, t,
                                            m, k, n, 1);
                        }},
                       {"linear_grad_input",
                        [&] {
                          sprt_linear_grad_input_typed(dy.p, t, w.p, t, dx.p, t,
                                                       m, k, n, 1);
                        }},
                       {"linear_grad_weight", [&] {
                          sprt_linear_grad_weight_typed(x.p, t, dy.p, t, dw.p,
                                                        t, m, k, n, 1, 0);
                        }}};
          for (auto &c : calls)
            out.item(fmt("{\"op\": \"%s\", \"dtype\": \"%s\", \"m\": %lld, "
                         "\"k\": %lld, \"n\": %lld, \"seconds\": %.9g}",
                         c.op, p.name, (long long)m, (long long)k, (long long)n,
                         measure(c.fn)));
        }
  }
  return out.close();
}

/// Where the ranks of this node outnumber its cores (CPU ranks yielding
/// their cores while they wait): how much faster a rank runs a GEMM alone
/// than when every rank runs one, the median over three shapes, as the
/// JSON member "shared_cores"; else "".
std::string sharedCores() {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int local = sprt::World::localSize();
  if (onDevice() || cores < 1 || local <= cores)
    return "";
  const int64_t F = SPRT_DTYPE_F32, n = 256;
  std::vector<double> speedups;
  for (int64_t m : {256, 1024, 4096}) {
    Buffer x(m * n, F, 1), w(n * n, F, 0.1f), y(m * n, F, 0);
    auto gemm = [&] {
      sprt_linear_f32(x.f(), w.f(), nullptr, y.f(), m, n, n, 1);
    };
    double all = measure(gemm);
    // Rank 0 alone: the others wait in measure's reduction.
    double solo = measure([&] {
      if (sprt_world_rank() == 0)
        gemm();
    });
    speedups.push_back(all / solo);
  }
  std::sort(speedups.begin(), speedups.end());
  return fmt("{\"cores\": %ld, \"solo_speedup\": %.6g}", cores,
             std::max(1.0, speedups[1]));
}

/// Causal attention, forward and backward: f32 on CPU ranks, bf16 as
/// stored on a device (cuDNN's where the backend has it).
std::string attention() {
  JsonList out;
  const bool device = onDevice();
  const Precision p = device ? Precision{"bf16", SPRT_DTYPE_BF16}
                             : Precision{"fp32", SPRT_DTYPE_F32};
  const int64_t b = 2, heads = device ? 16 : 4;
  for (int64_t s : device ? std::vector<int64_t>{1024, 4096}
                          : std::vector<int64_t>{128, 512})
    for (int64_t d : device ? std::vector<int64_t>{64, 128}
                            : std::vector<int64_t>{32, 64}) {
      const int64_t n = s * b * heads * d;
      const int32_t t = p.dtype;
      Buffer q(n, t, 1), k(n, t, 1), v(n, t, 1), o(n, t, 0), dout(n, t, 0.1f),
          dq(n, t, 0), dk(n, t, 0), dv(n, t, 0);
      sprt_attention_args a{};
      a.S = s, a.B = b, a.heads = heads, a.kv_heads = heads, a.head_dim = d;
      a.causal = 1, a.batch_axis = -1, a.head_axis = -1, a.seq_axis = -1;
      auto forward = [&] {
        if (t == SPRT_DTYPE_F32)
          sprt_op_attention(q.f(), k.f(), v.f(), nullptr, o.f(), &a);
        else
          sprt_op_attention_typed(q.p, k.p, v.p, nullptr, o.p, &a, t);
      };
      auto backward = [&] {
        if (t == SPRT_DTYPE_F32)
          sprt_op_attention_grad(dout.f(), q.f(), k.f(), v.f(), nullptr, dq.f(),
                                 dk.f(), dv.f(), &a);
        else
          sprt_op_attention_grad_typed(dout.p, q.p, k.p, v.p, nullptr, dq.p,
                                       dk.p, dv.p, &a, t);
      };
      double fwd = measure(forward), bwd = measure(backward);
      out.item(fmt("{\"dtype\": \"%s\", \"s\": %lld, \"b\": %lld, \"heads\": "
                   "%lld, \"head_dim\": %lld, \"forward_seconds\": %.9g, "
                   "\"backward_seconds\": %.9g}",
                   p.name, (long long)s, (long long)b, (long long)heads,
                   (long long)d, fwd, bwd));
    }
  return out.close();
}

/// Memory-bound kernels on [T, H] f32 rows (4096 x 512 on CPU ranks,
/// 8192 x 2048 on a device: past its caches), named by their tfm op;
/// "bytes" counts the op's tensor operands and results, as the planner does
/// (AdamW's parameters and moments are symbols, not operands: its bytes
/// are the gradient's).
std::string memoryBound() {
  const bool device = onDevice();
  const int64_t t = device ? 8192 : 4096, h = device ? 2048 : 512, n = t * h,
                f = 4, F = SPRT_DTYPE_F32;
  Buffer x(n, F, 1), y(n, F, 0), dy(n, F, 0.1f), dx(n, F, 0), w(h, F, 1),
      b(h, F, 0.1f), dw(h, F, 0), db(h, F, 0), m(n, F, 0), v(n, F, 0),
      scale(1, F, 0);
  const float one = 1.0f;
  sprt_memcpy_to_device(scale.p, &one, 4, sprt_current_stream());
  // The learning rate from the step's values (slot 0), as a compiled step
  // passes it.
  const double lr = 1e-4;
  sprt_upload_step_values(&lr, 1);
  struct {
    const char *op;
    int64_t bytes;
    std::function<void()> fn;
  } calls[] = {
      {"copy", 2 * n * f,
       [&] {
         sprt_copy_2d(y.p, n * f, x.p, n * f, n * f, 1, sprt_current_stream());
       }},
      {"tfm.add", 3 * n * f, [&] { sprt_add_f32(x.f(), dy.f(), y.f(), n); }},
      {"tfm.layer_norm", (2 * n + 2 * h) * f,
       [&] { sprt_layer_norm_f32(x.f(), w.f(), b.f(), y.f(), t, h, 1e-5); }},
      {"tfm.layer_norm_grad", (3 * n + 3 * h) * f,
       [&] {
         sprt_layer_norm_grad_f32(dy.f(), x.f(), w.f(), dx.f(), dw.f(), db.f(),
                                  t, h, 1e-5);
       }},
      {"tfm.gelu", 2 * n * f, [&] { sprt_gelu_f32(x.f(), y.f(), n, 1); }},
      {"tfm.gelu_grad", 3 * n * f,
       [&] { sprt_gelu_grad_f32(dy.f(), x.f(), dx.f(), n, 1); }},
      {"tfm.bias_grad", (n + h) * f,
       [&] { sprt_bias_grad_f32(dy.f(), db.f(), t, h); }},
      {"tfm.sum_squares", (n + 1) * f,
       [&] {
         const float *xs[] = {dy.f()};
         sprt_op_sum_squares(1, xs, &n, dw.f());
       }},
      {"tfm.adamw_update", (n + 1) * f, [&] {
         sprt_op_adamw(y.f(), dy.f(), m.f(), v.f(), scale.f(), n,
                       /*lr_slot=*/0, 0.9, 0.999, 1e-8, 0.0, -1, -1);
       }}};
  JsonList out;
  for (auto &c : calls)
    out.item(fmt("{\"op\": \"%s\", \"bytes\": %lld, \"seconds\": %.9g}", c.op,
                 (long long)c.bytes, measure(c.fn)));
  return out.close();
}

/// Ring attention over all ranks (the sequence split R ways, causal, f32),
/// with the bytes the runtime counts as sent by one forward and one
/// backward.
std::string ringAttention() {
  JsonList out;
  const int64_t ranks = sprt_axis_size(0), F = SPRT_DTYPE_F32;
  for (int64_t s : {128, 512}) {
    const int64_t b = 2, heads = 4, d = 64, local = s / ranks,
                  n = local * b * heads * d;
    Buffer q(n, F, 1), k(n, F, 1), v(n, F, 1), o(n, F, 0),
        lse(local * b * heads, F, 0), dout(n, F, 0.1f), dq(n, F, 0),
        dk(n, F, 0), dv(n, F, 0);
    sprt_attention_args a{};
    a.S = local, a.B = b, a.heads = heads, a.kv_heads = heads, a.head_dim = d;
    a.causal = 1, a.batch_axis = -1, a.head_axis = -1, a.seq_axis = 0;
    auto forward = [&] {
      sprt_op_ring_attention(q.f(), k.f(), v.f(), nullptr, o.f(), lse.f(), &a);
    };
    auto backward = [&] {
      sprt_op_ring_attention_grad(dout.f(), q.f(), k.f(), v.f(), nullptr, o.f(),
                                  lse.f(), dq.f(), dk.f(), dv.f(), &a);
    };
    sprt_reset_bytes_sent();
    forward();
    backward();
    sprt_stream_synchronize(sprt_current_stream());
    int64_t sent = sprt_bytes_sent(0);
    double fwd = measure(forward), bwd = measure(backward);
    out.item(fmt("{\"s\": %lld, \"ranks\": %lld, \"b\": %lld, \"heads\": "
                 "%lld, \"head_dim\": %lld, \"forward_seconds\": %.9g, "
                 "\"backward_seconds\": %.9g, \"bytes_sent\": %lld}",
                 (long long)local, (long long)ranks, (long long)b,
                 (long long)heads, (long long)d, fwd, bwd, (long long)sent));
  }
  return out.close();
}

std::string collectives() {
  JsonList out;
  const int64_t F = SPRT_DTYPE_F32;
  for (int64_t bytes = 4096; bytes <= (8 << 20); bytes *= 4) {
    int64_t n = bytes / 4;
    int64_t ranks = sprt_axis_size(0);
    Buffer in(n, F, 1), sum(n, F, 0), gathered(n * ranks, F, 0),
        workspace(n * ranks, F, 0);
    struct {
      const char *op;
      std::function<void()> fn;
    } calls[] = {
        {"all_reduce",
         [&] { sprt_all_reduce_f32(in.f(), sum.f(), n, SPRT_SUM, 0); }},
        {"all_gather", [&] {
           sprt_all_gather(in.p, gathered.p, 4, 1, n, 1, 1, 1, 0, 0, 0,
                           workspace.p, bytes * ranks);
         }}};
    for (auto &c : calls) {
      sprt_reset_bytes_sent();
      c.fn();
      sprt_stream_synchronize(sprt_current_stream());
      int64_t sent = sprt_bytes_sent(0);
      out.item(fmt("{\"op\": \"%s\", \"bytes\": %lld, \"bytes_sent\": %lld, "
                   "\"seconds\": %.9g}",
                   c.op, (long long)bytes, (long long)sent, measure(c.fn)));
    }
  }
  return out.close();
}

/// "--peak NAME=FLOPS" (the device's published dense peak for precision
/// NAME) as a JSON member, or an error.
bool parsePeak(const char *arg, std::string &json) {
  const char *eq = std::strchr(arg, '=');
  char *end = nullptr;
  double flops = eq ? std::strtod(eq + 1, &end) : 0;
  if (!eq || eq == arg || !end || *end || !(flops > 0))
    return false;
  if (!json.empty())
    json += ", ";
  json += "\"" + std::string(arg, eq) + "\": " + fmt("%.9g", flops);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  const char *outPath = nullptr;
  std::string peaks;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--peak") == 0 && i + 1 < argc &&
        parsePeak(argv[i + 1], peaks)) {
      ++i;
    } else if (argv[i][0] != '-' && !outPath) {
      outPath = argv[i];
    } else {
      std::fprintf(stderr,
                   "sp-calibrate: bad argument '%s' (usage: sp-calibrate "
                   "[--peak PRECISION=FLOPS]... [OUT.json])\n",
                   argv[i]);
      return 2;
    }
  }
  sprt::World::init(&argc, &argv);
  int64_t world = sprt::World::size();
  if (const char *error = sprt_device_init(sprt::World::localRank())) {
    std::fprintf(stderr, "sp-calibrate: rank %d: %s\n", sprt::World::rank(),
                 error);
    sprt::World::abort(); // every rank: the others would wait for this one
  }
  // Ranks sharing a GPU cannot be one NCCL communicator: they communicate
  // over MPI through host memory (--comm mpi), and the link measured is
  // that, not the GPUs' (said once).
  const int sharing = sprt::World::sumOnNode(0, sprt_device_key()).second;
  if (onDevice() && sharing > 1) {
    sprt::World::useComm("mpi");
    if (sprt::World::rank() == 0)
      std::fprintf(stderr,
                   "sp-calibrate: %d ranks share a GPU, which NCCL refuses: "
                   "they communicate over MPI through host memory (--comm "
                   "mpi), so the link measured is that, not the GPUs'\n",
                   sharing);
  }
  if (sprt_mesh_init(1, &world) != 0) {
    std::fprintf(stderr, "sp-calibrate: the mesh of %lld ranks failed\n",
                 (long long)world);
    sprt::World::abort();
  }
  // The attention kernel a program of this precision runs (cuDNN's for a
  // bf16 program on the cuda backend), as the driver selects it.
  std::string kernel =
      sprt_attention_select(onDevice() ? SPRT_DTYPE_BF16 : SPRT_DTYPE_F32,
                            std::getenv("SEQPAR_ATTENTION_KERNEL"));
  for (char &c : kernel)
    if (c == '"' || c == '\\')
      c = '\'';
  std::string json = "{\n  \"ranks\": " + std::to_string(world) +
                     ",\n  \"backend\": \"" + sprt_backend_name() + "\"" +
                     ",\n  \"attention_kernel\": \"" + kernel + "\"";
  if (onDevice()) {
    // Ranks that share a device share its memory (as the memory-fit check
    // counts them).
    int64_t freeBytes = 0, totalBytes = 0;
    sprt_device_memory(&freeBytes, &totalBytes);
    json += ",\n  \"device_memory_bytes\": " +
            std::to_string(totalBytes / std::max(sharing, 1));
  }
  if (!peaks.empty())
    json += ",\n  \"peak_flops\": {" + peaks + "}";
  json += ",\n  \"gemm\": " + gemms() + ",\n  \"attention\": " + attention() +
          ",\n  \"memory_bound\": " + memoryBound();
  std::string shared = sharedCores();
  if (!shared.empty())
    json += ",\n  \"shared_cores\": " + shared;
  // One rank has no link to measure.
  if (world > 1)
    json += ",\n  \"collectives\": " + collectives() +
            ",\n  \"ring_attention\": " + ringAttention();
  json += "\n}\n";
  int rc = 0;
  if (sprt_world_rank() == 0) {
    // Whole or not at all: a temporary file renamed.
    std::string temporary = outPath ? std::string(outPath) + ".tmp" : "";
    FILE *f = outPath ? std::fopen(temporary.c_str(), "w") : stdout;
    bool ok = f && std::fputs(json.c_str(), f) >= 0;
    if (f && f != stdout)
      ok = std::fclose(f) == 0 && ok &&
           std::rename(temporary.c_str(), outPath) == 0;
    if (!ok) {
      std::fprintf(stderr, "sp-calibrate: cannot write '%s'\n",
                   outPath ? outPath : "stdout");
      if (outPath)
        std::remove(temporary.c_str());
      rc = 1;
    }
  }
  sprt_mesh_finalize();
  sprt::World::finalize();
  return rc;
}

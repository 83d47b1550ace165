//===- CudnnAttention.cu - the sprt_attention* calls on cuDNN -------------===//
//
// Contract in CudnnAttention.h; sprt_attention_select in sprt/kernels.h.
//
//===----------------------------------------------------------------------===//

#include "CudnnAttention.h"
#include "CudnnGraphs.h"
#include "CudnnStaging.cuh"
#include "sprt/device.h"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace sprt::cuda;
namespace cd = sprt::cuda::cudnn;
namespace st = sprt::cuda::staging;

namespace {

struct Selection {
  bool cudnn = false;
  cd::IoType io = cd::IoType::BF16;
  std::string line = "native (the default until sprt_attention_select)";
};

Selection &selection() {
  static Selection s;
  return s;
}

/// Says once per shape why it stays on the native kernel.
void noteFallback(const std::string &why) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(why).second)
    std::fprintf(stderr, "sprt cuda: attention on the native kernel: %s\n",
                 why.c_str());
}

using st::mix;

cd::Shape shapeOf(const AttnCall &c) {
  cd::Shape s;
  s.B = c.B;
  s.heads = c.heads;
  s.kvHeads = c.kvHeads;
  s.Sq = c.Sq;
  s.Sk = c.Sk;
  s.D = c.D;
  s.io = selection().io;
  s.dropout = c.rate > 0.0 ? float(c.rate) : 0.0f;
  const int64_t rightBound = c.qOffset - c.kOffset;
  if (c.documentCausal && c.qPos)
    s.mask = cd::Mask::Bias;
  else if (!c.causal || rightBound >= c.Sk - 1)
    s.mask = cd::Mask::None;
  else if (rightBound < 0)
    s.mask = cd::Mask::Bias;
  else {
    s.mask = cd::Mask::Band;
    s.rightBound = rightBound;
  }
  return s;
}

size_t ioBytes(int64_t n) { return size_t(n) * 2; }

/// Sizes scratch `slot` to `bytes`; "" or why it cannot be had (`what`'s
/// bytes), when the native kernels take the call instead. A size that
/// failed once is not tried again, nor any larger: a retry while a step is
/// captured would fail the capture, and CUDA graphs for the run with it.
std::string reserve(Scratch slot, size_t bytes, const char *what) {
  static std::mutex mutex;
  static std::map<int, size_t> failed; // slot -> the least bytes that failed
  std::lock_guard<std::mutex> lock(mutex);
  auto it = failed.find(int(slot));
  if (it != failed.end() && bytes >= it->second)
    return std::string(what) + "'s " + std::to_string(bytes) +
           " bytes could not be allocated (" + std::to_string(it->second) +
           " failed before)";
  std::string error;
  try {
    if (scratch(slot, bytes))
      return {};
  } catch (const std::exception &e) {
    (void)cudaGetLastError();
    error = std::string(": ") + e.what();
  }
  failed[int(slot)] = it == failed.end() ? bytes : std::min(it->second, bytes);
  return std::string(what) + "'s " + std::to_string(bytes) +
         " bytes could not be allocated" + error;
}

/// Sizes the bias mask's scratch (B x Sq x Sk elements: long sequences
/// make it large).
std::string reserveBias(const AttnCall &c) {
  return reserve(Scratch::CudnnBias, ioBytes(c.B * c.Sq * c.Sk),
                 "the bias mask");
}

/// The shapes readied before step 1 (sprt_attention_prepare), each with
/// whether its backward was.
std::vector<std::pair<cd::Shape, bool>> &readied() {
  static std::vector<std::pair<cd::Shape, bool>> shapes;
  return shapes;
}

void markReadied(const cd::Shape &s, bool backward) {
  for (auto &r : readied())
    if (r.first == s) {
      r.second = r.second || backward;
      return;
    }
  readied().emplace_back(s, backward);
}

/// Whether the call goes to cuDNN. A call whose shape (direction) was not
/// readied before step 1 is said, once: its plan is built in the middle of
/// a step, perhaps while the step is captured.
bool offered(const AttnCall &c, bool backward) {
  if (!selection().cudnn)
    return false;
  const cd::Shape s = shapeOf(c);
  for (const auto &r : readied())
    if (r.first == s && (r.second || !backward))
      return true;
  static std::mutex mutex;
  static std::vector<std::pair<cd::Shape, bool>> said;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &r : said)
    if (r.first == s && r.second == backward)
      return true;
  said.emplace_back(s, backward);
  std::fprintf(stderr,
               "sprt cuda: attention %s %s was not readied at start-up "
               "(sprt_attention_prepare): its cuDNN plan is built in a step\n",
               backward ? "backward" : "forward", s.describe().c_str());
  return true;
}

/// Whether the call can run on cuDNN: selected, and its plans built (both
/// directions when dropout is on, so that a forward on cuDNN's mask never
/// meets a native backward).
bool usable(const AttnCall &c, const cd::Shape &s, bool needBackward) {
  if (!selection().cudnn)
    return false;
  std::string why = cd::prepareForward(s);
  if (why.empty() && (needBackward || s.dropout > 0.0f))
    why = cd::prepareBackward(s);
  if (why.empty() && s.mask == cd::Mask::Bias)
    why = reserveBias(c);
  if (!why.empty())
    noteFallback(why);
  return why.empty();
}

/// The graphs' workspace (cd::run falls back to the native kernels on the
/// exception).
void *workspace(size_t bytes) {
  const std::string why =
      reserve(Scratch::CudnnWorkspace, bytes, "the cuDNN workspace");
  if (!why.empty())
    throw std::runtime_error(why);
  return scratch(Scratch::CudnnWorkspace, bytes);
}

st::Rows rowsOf(const AttnCall &c, bool query, int64_t heads, bool rotate) {
  st::Rows r{};
  r.rows = query ? c.Sq : c.Sk;
  r.B = c.B;
  r.heads = heads;
  r.D = c.D;
  r.pos = query ? c.qPos : c.kPos;
  r.posRow = query ? c.qPosRow : c.kPosRow;
  r.globalRow = query ? c.qOffset : c.kOffset;
  const int64_t rd = std::min(std::max<int64_t>(c.rotaryDim, 0), c.D);
  r.half = rotate ? int32_t(rd / 2) : 0;
  for (int64_t i = 0; i < r.half; ++i)
    r.invFreq[i] = 1.0f / std::pow(float(c.theta), float(2 * i) / float(rd));
  return r;
}

st::Visibility visibilityOf(const AttnCall &c) {
  return st::Visibility{c.Sq,
                        c.Sk,
                        c.B,
                        c.qOffset,
                        c.kOffset,
                        int32_t(c.causal),
                        int32_t(c.documentCausal),
                        c.qPos,
                        c.qPosRow};
}

/// `src` (f32, or T as stored) in cuDNN's T, rotated as `r` says: `src`
/// itself when it is stored and not rotated, else staged in `slot`.
template <typename T>
void pack(const AttnCall &c, const st::Rows &r, const void *src, Scratch slot,
          void *&dst) {
  const int64_t n = r.rows * r.B * r.heads * r.D;
  if (c.stored && r.half == 0) {
    dst = const_cast<void *>(src);
    return;
  }
  dst = scratch(slot, ioBytes(n));
  if (c.stored) {
    auto *packStored = st::packRows<T, T>;
    SPRT_LAUNCH(packStored, n, r, static_cast<const T *>(src),
                static_cast<T *>(dst));
  } else {
    auto *packF32 = st::packRows<T, float>;
    SPRT_LAUNCH(packF32, n, r, static_cast<const float *>(src),
                static_cast<T *>(dst));
  }
}

/// cuDNN's `src` into `dst` (f32, or T as stored), through the rotation's
/// transpose.
template <typename T>
void unpack(const AttnCall &c, const st::Rows &r, const void *src, void *dst,
            bool accumulate) {
  const int64_t n = r.rows * r.B * r.heads * r.D;
  if (c.stored) {
    auto *unpackStored = st::unpackRows<T, T>;
    SPRT_LAUNCH(unpackStored, n, r, static_cast<const T *>(src),
                static_cast<T *>(dst), int32_t(accumulate));
  } else {
    auto *unpackF32 = st::unpackRows<T, float>;
    SPRT_LAUNCH(unpackF32, n, r, static_cast<const T *>(src),
                static_cast<float *>(dst), int32_t(accumulate));
  }
}

/// The staged inputs of a call: q, k (rotated), v, the mask and the seed.
template <typename T>
cd::Tensors stageInputs(const AttnCall &c, const cd::Shape &s) {
  cd::Tensors t;
  void *q, *k, *v;
  pack<T>(c, rowsOf(c, true, c.heads, true), c.q, Scratch::CudnnQ, q);
  pack<T>(c, rowsOf(c, false, c.kvHeads, true), c.k, Scratch::CudnnK, k);
  pack<T>(c, rowsOf(c, false, c.kvHeads, false), c.v, Scratch::CudnnV, v);
  t.q = q;
  t.k = k;
  t.v = v;
  if (s.mask == cd::Mask::Bias) {
    const int64_t n = c.B * c.Sq * c.Sk;
    void *bias = scratch(Scratch::CudnnBias, ioBytes(n));
    const float lowest = s.io == cd::IoType::BF16 ? -3.38953139e38f : -65504.0f;
    SPRT_LAUNCH(st::buildBias<T>, n, visibilityOf(c), static_cast<T *>(bias),
                lowest);
    t.bias = bias;
  }
  if (s.dropout > 0.0f) {
    auto *seed = static_cast<int64_t *>(
        scratch(Scratch::CudnnSeed, 2 * sizeof(int64_t)));
    const uint64_t offset =
        mix(mix(mix(uint64_t(c.batchOffset)) ^ uint64_t(c.headOffset)) ^
            mix(uint64_t(c.qOffset) << 32 ^ uint64_t(c.kOffset)));
    st::setSeed<<<1, 1, 0, stream()>>>(seed, c.seed,
                                       &sprt_step_values_device()->dropout_salt,
                                       mix(c.stream), int64_t(offset >> 2));
    SPRT_CUDA_CHECK_LAUNCH("setSeed");
    t.seed = seed;
    t.offset = seed + 1;
  }
  t.o = scratch(Scratch::CudnnO, ioBytes(c.Sq * c.B * c.heads * c.D));
  t.stats = static_cast<float *>(
      scratch(Scratch::CudnnStats, size_t(c.B * c.heads * c.Sq) * 4));
  return t;
}

/// Runs the forward; false (and the reason said) when cuDNN refused.
bool runForward(const cd::Shape &s, const cd::Tensors &t) {
  std::string why = cd::forward(s, t, stream(), workspace);
  if (!why.empty())
    noteFallback(why);
  return why.empty();
}

/// The forward into `out` (f32, or T as stored: written by cuDNN).
template <typename T> bool attention(const AttnCall &c, void *out) {
  const cd::Shape s = shapeOf(c);
  if (!usable(c, s, false))
    return false;
  cd::Tensors t = stageInputs<T>(c, s);
  if (c.stored)
    t.o = out;
  if (!runForward(s, t))
    return false;
  if (!c.stored)
    unpack<T>(c, rowsOf(c, true, c.heads, false), t.o, out, false);
  return true;
}

/// Stages dO and runs the backward into dq, dk, dv: the given ones (as
/// stored), else the scratch.
template <typename T>
bool runBackward(const AttnCall &c, const cd::Shape &s, cd::Tensors &t,
                 const void *dout, void *dq = nullptr, void *dk = nullptr,
                 void *dv = nullptr) {
  void *dO;
  pack<T>(c, rowsOf(c, true, c.heads, false), dout, Scratch::CudnnDO, dO);
  t.dO = dO;
  t.dq =
      dq ? dq : scratch(Scratch::CudnnDQ, ioBytes(c.Sq * c.B * c.heads * c.D));
  t.dk = dk ? dk
            : scratch(Scratch::CudnnDK, ioBytes(c.Sk * c.B * c.kvHeads * c.D));
  t.dv = dv ? dv
            : scratch(Scratch::CudnnDV, ioBytes(c.Sk * c.B * c.kvHeads * c.D));
  std::string why = cd::backward(s, t, stream(), workspace);
  // The forward drew cuDNN's dropout masks; the native backward would
  // draw its own, and give another attention's gradient.
  if (!why.empty() && s.dropout > 0.0f)
    throw std::runtime_error(
        "attention's backward with dropout could not run on cuDNN after its "
        "forward did (" +
        why +
        "): the native kernel's dropout masks are not cuDNN's (run with "
        "SEQPAR_ATTENTION_KERNEL=native)");
  if (!why.empty())
    noteFallback(why);
  return why.empty();
}

template <typename T>
void unpackGrads(const AttnCall &c, const cd::Tensors &t, void *dq,
                 bool accumulateDq, void *dk, void *dv, bool accumulateDkv) {
  unpack<T>(c, rowsOf(c, true, c.heads, true), t.dq, dq, accumulateDq);
  unpack<T>(c, rowsOf(c, false, c.kvHeads, true), t.dk, dk, accumulateDkv);
  unpack<T>(c, rowsOf(c, false, c.kvHeads, false), t.dv, dv, accumulateDkv);
}

/// The backward into dq, dk, dv (f32, or T as stored: written by cuDNN
/// itself when no rotation is to be undone).
template <typename T>
bool attentionGrad(const AttnCall &c, const void *dout, void *dq, void *dk,
                   void *dv, bool accumulateDkv) {
  const cd::Shape s = shapeOf(c);
  if (!usable(c, s, true))
    return false;
  cd::Tensors t = stageInputs<T>(c, s);
  const bool direct = c.stored && rowsOf(c, true, c.heads, true).half == 0;
  // The forward again: the backward needs its output and statistics.
  if (!runForward(s, t) ||
      !runBackward<T>(c, s, t, dout, direct ? dq : nullptr,
                      direct ? dk : nullptr, direct ? dv : nullptr))
    return false;
  if (!direct)
    unpackGrads<T>(c, t, dq, false, dk, dv, accumulateDkv);
  return true;
}

/// The forward into `out` as stored and its statistics into `lse`.
template <typename T>
bool attentionLse(const AttnCall &c, void *out, float *lse) {
  const cd::Shape s = shapeOf(c);
  if (!usable(c, s, false))
    return false;
  cd::Tensors t = stageInputs<T>(c, s);
  t.o = out;
  if (!runForward(s, t))
    return false;
  SPRT_LAUNCH(st::lseFromStats, c.Sq * c.B * c.heads, visibilityOf(c), c.heads,
              t.stats, lse);
  return true;
}

/// The backward given the forward's `out` (as stored) and `lse`: no
/// forward; dq, dk, dv written (by cuDNN itself when no rotation is to be
/// undone).
template <typename T>
bool attentionGradLse(const AttnCall &c, const void *dout, const void *out,
                      const float *lse, void *dq, void *dk, void *dv) {
  const cd::Shape s = shapeOf(c);
  if (!usable(c, s, true))
    return false;
  cd::Tensors t = stageInputs<T>(c, s);
  void *o;
  pack<T>(c, rowsOf(c, true, c.heads, false), out, Scratch::CudnnO, o);
  t.o = o;
  SPRT_LAUNCH(st::statsFromLse, c.Sq * c.B * c.heads, c.Sq, c.B, c.heads, lse,
              t.stats);
  const bool direct = rowsOf(c, true, c.heads, true).half == 0;
  if (!runBackward<T>(c, s, t, dout, direct ? dq : nullptr,
                      direct ? dk : nullptr, direct ? dv : nullptr))
    return false;
  if (!direct)
    unpackGrads<T>(c, t, dq, false, dk, dv, false);
  return true;
}

template <typename T>
bool block(const AttnCall &c, float *out, float *lse, bool accumulate) {
  const cd::Shape s = shapeOf(c);
  if (!usable(c, s, false))
    return false;
  cd::Tensors t = stageInputs<T>(c, s);
  if (!runForward(s, t))
    return false;
  SPRT_LAUNCH(st::mergeBlock<T>, c.Sq * c.B * c.heads, visibilityOf(c), c.heads,
              c.D, static_cast<const T *>(t.o), t.stats, out, lse,
              int32_t(accumulate));
  return true;
}

template <typename T>
bool blockGrad(const AttnCall &c, const float *dout, const float *out,
               const float *lse, float *dq, float *dk, float *dv) {
  const cd::Shape s = shapeOf(c);
  if (!usable(c, s, true))
    return false;
  cd::Tensors t = stageInputs<T>(c, s);
  // The whole forward's output and statistics: cuDNN's
  // P = exp(s - stats) and D = rowsum(dO o) are then this block's share of
  // the full softmax's gradient.
  void *o;
  pack<T>(c, rowsOf(c, true, c.heads, false), out, Scratch::CudnnO, o);
  t.o = o;
  SPRT_LAUNCH(st::statsFromLse, c.Sq * c.B * c.heads, c.Sq, c.B, c.heads, lse,
              t.stats);
  if (!runBackward<T>(c, s, t, dout))
    return false;
  unpackGrads<T>(c, t, dq, true, dk, dv, true);
  return true;
}

bool bf16() { return selection().io == cd::IoType::BF16; }

/// Whether a typed call (`c.stored`, tensors in `dtype`) is cuDNN's: it was
/// selected for this program's bf16 / f16, which the tensors are in.
bool storedOnCudnn(const AttnCall &c, int32_t dtype, bool backward) {
  return c.stored && dtype == (bf16() ? SPRT_DTYPE_BF16 : SPRT_DTYPE_F16) &&
         offered(c, backward);
}

} // namespace

namespace sprt::cuda {

bool cudnnSelected() { return selection().cudnn; }

bool cudnnAttention(const AttnCall &c, float *out) {
  if (!offered(c, false))
    return false;
  return bf16() ? attention<__nv_bfloat16>(c, out) : attention<__half>(c, out);
}

bool cudnnAttentionGrad(const AttnCall &c, const float *dout, float *dq,
                        float *dk, float *dv, bool accumulateDkv) {
  if (!offered(c, true))
    return false;
  return bf16()
             ? attentionGrad<__nv_bfloat16>(c, dout, dq, dk, dv, accumulateDkv)
             : attentionGrad<__half>(c, dout, dq, dk, dv, accumulateDkv);
}

bool cudnnAttentionStored(const AttnCall &c, void *out, int32_t dtype) {
  if (!storedOnCudnn(c, dtype, false))
    return false;
  return bf16() ? attention<__nv_bfloat16>(c, out) : attention<__half>(c, out);
}

bool cudnnAttentionGradStored(const AttnCall &c, const void *dout, void *dq,
                              void *dk, void *dv, int32_t dtype) {
  if (!storedOnCudnn(c, dtype, true))
    return false;
  return bf16() ? attentionGrad<__nv_bfloat16>(c, dout, dq, dk, dv, false)
                : attentionGrad<__half>(c, dout, dq, dk, dv, false);
}

bool cudnnAttentionStoredLse(const AttnCall &c, void *out, float *lse,
                             int32_t dtype) {
  if (!storedOnCudnn(c, dtype, false))
    return false;
  return bf16() ? attentionLse<__nv_bfloat16>(c, out, lse)
                : attentionLse<__half>(c, out, lse);
}

bool cudnnAttentionGradStoredLse(const AttnCall &c, const void *dout,
                                 const void *out, const float *lse, void *dq,
                                 void *dk, void *dv, int32_t dtype) {
  if (!storedOnCudnn(c, dtype, true))
    return false;
  return bf16() ? attentionGradLse<__nv_bfloat16>(c, dout, out, lse, dq, dk, dv)
                : attentionGradLse<__half>(c, dout, out, lse, dq, dk, dv);
}

bool cudnnAttentionBlock(const AttnCall &c, float *out, float *lse,
                         bool accumulate) {
  if (!offered(c, false))
    return false;
  return bf16() ? block<__nv_bfloat16>(c, out, lse, accumulate)
                : block<__half>(c, out, lse, accumulate);
}

bool cudnnAttentionBlockGrad(const AttnCall &c, const float *dout,
                             const float *out, const float *lse, float *dq,
                             float *dk, float *dv) {
  if (!offered(c, true))
    return false;
  return bf16() ? blockGrad<__nv_bfloat16>(c, dout, out, lse, dq, dk, dv)
                : blockGrad<__half>(c, dout, out, lse, dq, dk, dv);
}

} // namespace sprt::cuda

extern "C" const char *sprt_attention_select(int32_t precision,
                                             const char *request) {
  Selection &s = selection();
  const std::string req = request ? request : "";
  s.cudnn = false;
  if (req == "native") {
    s.line = "native (requested)";
    return s.line.c_str();
  }
  if (!req.empty() && req != "auto" && req != "cudnn") {
    s.line = "native (unknown attention kernel '" + req +
             "': cudnn, native or auto)";
    return s.line.c_str();
  }
  if (precision != SPRT_DTYPE_BF16 && precision != SPRT_DTYPE_F16) {
    s.line = "native (cuDNN's fused attention takes bf16 or f16 tensors; "
             "this program computes in f32)";
    return s.line.c_str();
  }
  const std::string &why = cd::load();
  if (!why.empty()) {
    s.line = "native (" + why + ")";
    return s.line.c_str();
  }
  s.cudnn = true;
  s.io = precision == SPRT_DTYPE_BF16 ? cd::IoType::BF16 : cd::IoType::F16;
  s.line = "cudnn (cuDNN " + cd::version() + ", " +
           (precision == SPRT_DTYPE_BF16 ? "bf16" : "f16") +
           "; plans built at start-up)";
  return s.line.c_str();
}

extern "C" void sprt_attention_prepare(int64_t Sq, int64_t Sk, int64_t q_offset,
                                       int64_t k_offset, int64_t B,
                                       int64_t heads, int64_t kv_heads,
                                       int64_t head_dim, int32_t causal,
                                       int32_t document_causal,
                                       double dropout_rate, int32_t backward) {
  if (!cudnnSelected())
    return;
  // The plan depends on the shape, not on the tensors: a document mask
  // needs the queries' positions (any pointer; prepare reads none).
  static const int64_t anyPositions = 0;
  const int64_t *positions = document_causal ? &anyPositions : nullptr;
  const AttnCall c =
      blockCall(nullptr, nullptr, nullptr, positions, positions, Sq, Sk,
                q_offset, k_offset, B, heads, kv_heads, head_dim, causal,
                document_causal, /*rotaryDim=*/0, /*theta=*/0.0, dropout_rate,
                /*seed=*/0, /*stream=*/0, /*batchOffset=*/0, /*headOffset=*/0);
  const cd::Shape s = shapeOf(c);
  markReadied(s, backward != 0 || s.dropout > 0.0f);
  // The workspace at its largest now, before step 1 (and before the plan's
  // fit is checked against the device's free memory). Where it cannot be
  // had, the call tries again and, failing, runs natively (cd::run).
  if (!usable(c, s, backward != 0))
    return;
  const int64_t bytes = cd::largestWorkspace();
  const std::string why = bytes > 0
                              ? reserve(Scratch::CudnnWorkspace, size_t(bytes),
                                        "the cuDNN workspace")
                              : std::string();
  if (!why.empty())
    noteFallback(why + " at start-up");
}

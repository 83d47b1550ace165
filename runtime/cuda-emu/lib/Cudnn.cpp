//===- Cudnn.cpp - cuDNN's SDPA graphs run on the emulator ----------------===//
//
// The graphs of runtime/cuda/CudnnGraphs.cpp as cuDNN's documentation
// defines them, in plain loops (sums in double), tensors in the graphs'
// layouts: q, o, dO, dq [B, heads, Sq, D] and k, v, dk, dv [B, kvHeads, Sk,
// D] with strides {heads D, D, B heads D, 1} (seqpar's [S, B, heads, D]),
// in bf16 or f16; query head h reads key / value head h / (heads /
// kvHeads). Forward: S = scale q k^T (+ bias [B, 1, Sq, Sk]), keys past the
// top-left band hidden (j > i + rightBound), P = softmax(S), stats [B,
// heads, Sq] = the log-sum-exp of the row (natural log, before dropout),
// O = (P with dropout) v. Dropout keeps each element with probability 1 - p
// and scales it by 1 / (1 - p); the mask is the emulator's own (a hash of
// the seed, the offset and the element), the same in the forward and the
// backward, as cuDNN's is (cuDNN's own masks come from its Philox stream:
// no test can expect them). Backward: P from the given stats, dP = dO v^T
// (with the forward's dropout), D = rowsum(dO o O), dS = P o (dP - D),
// dq = scale dS k, dk = scale dS^T q, dv = P^T dO (summed over a key /
// value head's query heads), each written in the io type. Not emulated:
// cuDNN's intermediate roundings (P rounded to the io type before its GEMM
// with v) and its order of sums.
//
//===----------------------------------------------------------------------===//

#include "SprtEmuCudnn.h"

#include "Emu.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace cd = sprt::cuda::cudnn;

namespace {

double load(const void *p, cd::IoType io, size_t i) {
  return io == cd::IoType::BF16
             ? double(
                   __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]))
             : double(__half2float(static_cast<const __half *>(p)[i]));
}

void store(void *p, cd::IoType io, size_t i, double v) {
  if (io == cd::IoType::BF16)
    static_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16_rn(float(v));
  else
    static_cast<__half *>(p)[i] = __float2half_rn(float(v));
}

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// One graph's geometry and its tensors' element offsets.
struct Graph {
  cd::Shape s;
  cd::Tensors t;
  double scale;
  int64_t group; // query heads per key / value head
  uint64_t seed = 0, offset = 0;

  Graph(const cd::Shape &shape, const cd::Tensors &tensors)
      : s(shape), t(tensors),
        scale(double(float(1.0 / std::sqrt(double(shape.D))))),
        group(shape.heads / shape.kvHeads) {
    if (s.dropout > 0.0f) { // read in stream order, as the graph reads them
      seed = uint64_t(*t.seed);
      offset = uint64_t(*t.offset);
    }
  }
  size_t q(int64_t b, int64_t h, int64_t i) const {
    return size_t(((i * s.B + b) * s.heads + h) * s.D);
  }
  size_t kv(int64_t b, int64_t h, int64_t j) const {
    return size_t(((j * s.B + b) * s.kvHeads + h / group) * s.D);
  }
  size_t stat(int64_t b, int64_t h, int64_t i) const {
    return size_t((b * s.heads + h) * s.Sq + i);
  }
  bool visible(int64_t i, int64_t j) const {
    return s.mask != cd::Mask::Band || j <= i + s.rightBound;
  }
  /// Dropout's factor for the element: 0, or 1 / (1 - p).
  double kept(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (s.dropout <= 0.0f)
      return 1.0;
    const uint64_t e = uint64_t(((b * s.heads + h) * s.Sq + i) * s.Sk + j);
    const double u = double(mix(seed ^ mix(offset ^ mix(e))) >> 11) * 0x1p-53;
    return u < double(s.dropout) ? 0.0 : 1.0 / (1.0 - double(s.dropout));
  }
  /// The row's scores: scale q k^T (+ bias), -inf where hidden.
  void scores(int64_t b, int64_t h, int64_t i, std::vector<double> &S) const {
    S.assign(size_t(s.Sk), -std::numeric_limits<double>::infinity());
    for (int64_t j = 0; j < s.Sk; ++j) {
      if (!visible(i, j))
        continue;
      double dot = 0.0;
      for (int64_t d = 0; d < s.D; ++d)
        dot +=
            load(t.q, s.io, q(b, h, i) + d) * load(t.k, s.io, kv(b, h, j) + d);
      S[j] = scale * dot;
      if (s.mask == cd::Mask::Bias)
        S[j] += load(t.bias, s.io, size_t((b * s.Sq + i) * s.Sk + j));
    }
  }
};

void runForward(const Graph &g) {
  const cd::Shape &s = g.s;
  std::vector<double> S, out(size_t(s.D));
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.Sq; ++i) {
        g.scores(b, h, i, S);
        double m = -std::numeric_limits<double>::infinity();
        for (double x : S)
          m = std::max(m, x);
        // A row with no key visible: zeros, and -inf for its statistics.
        double l = 0.0;
        for (double &x : S)
          l += (x = std::isinf(m) ? 0.0 : std::exp(x - m));
        g.t.stats[g.stat(b, h, i)] =
            l > 0.0 ? float(m + std::log(l))
                    : -std::numeric_limits<float>::infinity();
        std::fill(out.begin(), out.end(), 0.0);
        for (int64_t j = 0; j < s.Sk && l > 0.0; ++j) {
          const double p = S[j] / l * g.kept(b, h, i, j);
          if (p != 0.0)
            for (int64_t d = 0; d < s.D; ++d)
              out[d] += p * load(g.t.v, s.io, g.kv(b, h, j) + d);
        }
        for (int64_t d = 0; d < s.D; ++d)
          store(g.t.o, s.io, g.q(b, h, i) + d, out[d]);
      }
}

void runBackward(const Graph &g) {
  const cd::Shape &s = g.s;
  const size_t kvElems = size_t(s.Sk * s.B * s.kvHeads * s.D);
  std::vector<double> dk(kvElems, 0.0), dv(kvElems, 0.0), S, dq(size_t(s.D));
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.Sq; ++i) {
        g.scores(b, h, i, S);
        const double lse = double(g.t.stats[g.stat(b, h, i)]);
        double D = 0.0;
        for (int64_t d = 0; d < s.D; ++d)
          D += load(g.t.dO, s.io, g.q(b, h, i) + d) *
               load(g.t.o, s.io, g.q(b, h, i) + d);
        std::fill(dq.begin(), dq.end(), 0.0);
        for (int64_t j = 0; j < s.Sk; ++j) {
          if (std::isinf(S[j]))
            continue;
          const double P = std::exp(S[j] - lse), keep = g.kept(b, h, i, j);
          double dP = 0.0;
          for (int64_t d = 0; d < s.D; ++d)
            dP += load(g.t.dO, s.io, g.q(b, h, i) + d) *
                  load(g.t.v, s.io, g.kv(b, h, j) + d);
          const double dS = P * (dP * keep - D);
          for (int64_t d = 0; d < s.D; ++d) {
            const size_t at = g.kv(b, h, j) + d;
            dq[d] += g.scale * dS * load(g.t.k, s.io, at);
            dk[at] += g.scale * dS * load(g.t.q, s.io, g.q(b, h, i) + d);
            dv[at] += P * keep * load(g.t.dO, s.io, g.q(b, h, i) + d);
          }
        }
        for (int64_t d = 0; d < s.D; ++d)
          store(g.t.dq, s.io, g.q(b, h, i) + d, dq[d]);
      }
  for (size_t e = 0; e < kvElems; ++e) {
    store(g.t.dk, s.io, e, dk[e]);
    store(g.t.dv, s.io, e, dv[e]);
  }
}

} // namespace

cudaError_t sprt_emu::sdpa(const cd::Shape &s, bool backward,
                           const cd::Tensors &t, cudaStream_t stream) {
  const size_t io = 2, qBytes = size_t(s.Sq * s.B * s.heads * s.D) * io,
               kvBytes = size_t(s.Sk * s.B * s.kvHeads * s.D) * io,
               statBytes = size_t(s.B * s.heads * s.Sq) * 4;
  struct Operand {
    const void *p;
    size_t bytes;
    const char *name;
  };
  std::vector<Operand> operands = {{t.q, qBytes, "q"},
                                   {t.k, kvBytes, "k"},
                                   {t.v, kvBytes, "v"},
                                   {t.o, qBytes, "o"},
                                   {t.stats, statBytes, "stats"}};
  if (s.mask == cd::Mask::Bias)
    operands.push_back({t.bias, size_t(s.B * s.Sq * s.Sk) * io, "bias"});
  if (s.dropout > 0.0f) {
    operands.push_back({t.seed, 8, "seed"});
    operands.push_back({t.offset, 8, "offset"});
  }
  if (backward) {
    operands.push_back({t.dO, qBytes, "dO"});
    operands.push_back({t.dq, qBytes, "dq"});
    operands.push_back({t.dk, kvBytes, "dk"});
    operands.push_back({t.dv, kvBytes, "dv"});
  }
  for (const Operand &o : operands)
    if (!o.p || !isDeviceMemory(o.p, o.bytes)) {
      std::fprintf(stderr,
                   "sprt emu: cuDNN SDPA %s %s: %s is not device memory "
                   "cudaMalloc gave (or runs past its end)\n",
                   backward ? "backward" : "forward", s.describe().c_str(),
                   o.name);
      return cudaErrorInvalidValue;
    }
  return enqueue(stream, [s, t, backward] {
    const Graph g(s, t);
    if (backward)
      runBackward(g);
    else
      runForward(g);
  });
}

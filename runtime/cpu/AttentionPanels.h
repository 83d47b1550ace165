//===- AttentionPanels.h - shared pieces of attention and its backward -*- C++
//-*-===//
//
// The forward (Attention.cpp) and backward (AttentionGrad.cpp) kernels must
// recompute exactly the same rotated panels and row blocks.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CPU_ATTENTIONPANELS_H
#define SPRT_CPU_ATTENTIONPANELS_H

#include "Exp.h"
#include "Scratch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace sprt::cpu {

constexpr int64_t kRowBlock = 128;

// Copies head `h` of batch `b` out of a [S, B, nHeads * headDim] tensor into
// dst [S, headDim], rotating the first 2 * half features of each row
// (rotate-half: x1 = x[:half], x2 = x[half:2 half]; out = x * cos +
// (-x2, x1) * sin).
inline void gatherHead(const float *src, float *dst, int64_t S, int64_t B,
                       int64_t nHeads, int64_t headDim, int64_t b, int64_t h,
                       int64_t half, const float *cosT, const float *sinT) {
  const int64_t rowStride = B * nHeads * headDim;
  const float *base = src + b * nHeads * headDim + h * headDim;
  for (int64_t s = 0; s < S; ++s) {
    const float *in = base + s * rowStride;
    float *o = dst + s * headDim;
    std::memcpy(o, in, size_t(headDim) * sizeof(float));
    if (half == 0)
      continue;
    const float *c = cosT + s * half, *sn = sinT + s * half;
    for (int64_t i = 0; i < half; ++i) {
      float x1 = in[i], x2 = in[i + half];
      o[i] = x1 * c[i] + (-x2) * sn[i];
      o[i + half] = x2 * c[i] + x1 * sn[i];
    }
  }
}

/// Rotary cos/sin tables in float, as Hugging Face computes them:
/// inv_freq[i] = 1 / theta^(float(2i) / rotary_dim), angle = float(pos) *
/// inv_freq[i]; one row of `half` entries per position.
struct RotaryTables {
  int64_t half;
  ScratchVector<float> invFreq, cosT, sinT;

  RotaryTables(int64_t rotaryDim, double theta, int64_t S)
      : half(rotaryDim / 2), invFreq(size_t(half)), cosT(size_t(S * half)),
        sinT(size_t(S * half)) {
    for (int64_t i = 0; i < half; ++i)
      invFreq[size_t(i)] =
          1.0f / std::pow(float(theta), float(2 * i) / float(rotaryDim));
  }

  /// The tables of batch row `b`: positions [S, B], or the sequence index.
  void fill(const int64_t *positions, int64_t S, int64_t B, int64_t b) {
    for (int64_t s = 0; s < S; ++s) {
      float pos = float(positions ? positions[s * B + b] : s);
      for (int64_t i = 0; i < half; ++i) {
        float a = pos * invFreq[size_t(i)];
        cosT[size_t(s * half + i)] = std::cos(a);
        sinT[size_t(s * half + i)] = std::sin(a);
      }
    }
  }
};

/// What the forward and the backward derive alike from attention's
/// arguments. Rotary tables in float, as Hugging Face: inv_freq[i] =
/// 1 / theta^(float(2i) / rotary_dim), angle = float(pos) * inv_freq[i];
/// rotary_dim is clamped to head_dim and must be even (an odd trailing
/// feature is left unrotated). Scores are scaled by 1/sqrt(head_dim); kept
/// dropout entries by 1 / (1 - rate).
struct AttentionConstants {
  RotaryTables rotary;
  float scale, keepScale;
  bool dropout;

  AttentionConstants(int64_t rotaryDim, int64_t headDim, double theta,
                     int64_t S, double dropoutRate)
      : rotary(std::min(std::max<int64_t>(rotaryDim, 0), headDim), theta, S),
        scale(float(1.0 / std::sqrt(double(headDim)))),
        keepScale(dropoutRate < 1.0 ? float(1.0 / (1.0 - dropoutRate)) : 0.0f),
        dropout(dropoutRate > 0.0) {}
};

/// Throws std::invalid_argument unless the Sq query rows starting at global
/// row qOffset lie inside the Sk keys' sequence.
inline void checkQueryRows(const char *what, int64_t Sq, int64_t Sk,
                           int64_t qOffset) {
  if (qOffset < 0 || qOffset + Sq > Sk)
    throw std::invalid_argument(
        std::string(what) + ": query rows [" + std::to_string(qOffset) + ", " +
        std::to_string(qOffset + Sq) + ") outside the " + std::to_string(Sk) +
        " key rows");
}

/// Softmax of scores [first, last) of a row of `nk` in place (max
/// subtracted, sum in double), the rest (masked keys) zero.
/// Returns the row's log-sum-exp, m + log(sum) (-inf when it sees no key).
inline float softmaxRow(float *p, int64_t first, int64_t last, int64_t nk) {
  if (first >= last) {
    std::fill(p, p + nk, 0.0f);
    return -INFINITY;
  }
  float m = p[first];
  for (int64_t j = first + 1; j < last; ++j)
    m = std::max(m, p[j]);
  for (int64_t j = first; j < last; ++j) // vectorises
    p[j] = vexp(p[j] - m);
  double sum = 0.0;
  for (int64_t j = first; j < last; ++j)
    sum += double(p[j]);
  const float inv = float(1.0 / sum);
  for (int64_t j = first; j < last; ++j)
    p[j] *= inv;
  for (int64_t j = 0; j < first; ++j)
    p[j] = 0.0f;
  for (int64_t j = last; j < nk; ++j)
    p[j] = 0.0f;
  return m + float(std::log(sum));
}

/// The first key global query row i sees: i - positions[i, b] under a
/// document-causal mask (its document's first row; positions [S, B]),
/// else 0. A position outside [0, i] (not a packed document) gives 0.
inline int64_t firstVisibleKey(int32_t documentCausal, const int64_t *positions,
                               int64_t B, int64_t b, int64_t i) {
  if (!documentCausal || !positions)
    return 0;
  const int64_t p = positions[i * B + b];
  return p >= 0 && p <= i ? i - p : 0;
}

} // namespace sprt::cpu

#endif // SPRT_CPU_ATTENTIONPANELS_H

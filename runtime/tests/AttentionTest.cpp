//===- AttentionTest.cpp - sprt_attention_f32 vs a reference loop ---------===//
//
// The reference below is a direct transcription of the header's definition
// in double: per (b, h), rotate q and k, scores = q.k / sqrt(head_dim),
// causal mask, softmax, dropout with the global [B, heads, S, S] index, then
// P v. The one thing it does in float is the rotary angle, because the
// convention (Hugging Face's) is inv_freq = 1 / theta^(2i / d) and
// angle = pos * inv_freq computed in f32; everything after the angle is
// double. Dropout decisions come from sprt_uniform, which KernelsTest checks
// against Philox's known answers.
//
// Tolerance: |err| <= 1e-5 + 1e-5 |ref|. The kernel computes in f32: a
// head_dim <= 32 dot product (error ~ sqrt(32) u |q||k| ~ 3e-7 relative),
// float cos/sin (<= 1 ulp), exp and the normalisation (a few u), and an
// S-term P v sum (~sqrt(S) u). With O(1) inputs the output error is ~1e-6 at
// most; 1e-5 keeps a 10x margin while any mistake in masking, head mapping,
// rotation or the dropout index moves outputs by O(0.1).
//
// Sharded runs (a slice of heads or batches with its offsets) do the same
// arithmetic as the matching part of the full run and must match it bitwise.
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sprt_test;

namespace {

struct AttnConfig {
  int64_t S = 7, B = 2, heads = 4, kvHeads = 4, headDim = 8;
  bool causal = true;
  int64_t rotaryDim = 0;
  double theta = 10000.0;
  double rate = 0.0;
  uint64_t seed = 1234, stream = 77;
  // Where this problem sits in the global one (for the dropout index).
  int64_t globalBatch = -1, batchOffset = 0, globalHeads = -1, headOffset = 0;

  int64_t gB() const { return globalBatch < 0 ? B : globalBatch; }
  int64_t gH() const { return globalHeads < 0 ? heads : globalHeads; }
};

struct AttnInputs {
  std::vector<float> q, k, v;
  std::vector<int64_t> positions; // empty: NULL
};

AttnInputs makeInputs(const AttnConfig &c, uint32_t seed) {
  AttnInputs in;
  in.q = randomNormals(size_t(c.S * c.B * c.heads * c.headDim), seed);
  in.k = randomNormals(size_t(c.S * c.B * c.kvHeads * c.headDim), seed + 1);
  in.v = randomNormals(size_t(c.S * c.B * c.kvHeads * c.headDim), seed + 2);
  return in;
}

std::vector<float> runKernel(const AttnConfig &c, const AttnInputs &in) {
  std::vector<float> out(size_t(c.S * c.B * c.heads * c.headDim),
                         std::nanf(""));
  sprt_attention_f32(in.q.data(), in.k.data(), in.v.data(),
                     in.positions.empty() ? nullptr : in.positions.data(),
                     out.data(), c.S, c.S, 0, c.B, c.heads, c.kvHeads,
                     c.headDim, c.causal, 0, c.rotaryDim, c.theta, c.rate,
                     c.seed, c.stream, c.gB(), c.batchOffset, c.gH(),
                     c.headOffset);
  return out;
}

// Rotate-half on the first rotaryDim features of one head vector x[headDim].
void rotate(std::vector<double> &x, int64_t rotaryDim, double theta,
            int64_t pos) {
  const int64_t half = rotaryDim / 2;
  std::vector<double> r = x;
  for (int64_t i = 0; i < half; ++i) {
    // Hugging Face: inv_freq = 1.0 / (base ** (arange(0, d, 2).float() / d))
    // and freqs = pos.float() * inv_freq, all in f32.
    float invFreq = 1.0f / powf(float(theta), float(2 * i) / float(rotaryDim));
    float angle = float(pos) * invFreq;
    double cs = std::cos(double(angle)), sn = std::sin(double(angle));
    // out = x * cos + rotate_half(x) * sin, rotate_half(x) = (-x2, x1).
    r[i] = x[i] * cs - x[i + half] * sn;
    r[i + half] = x[i + half] * cs + x[i] * sn;
  }
  x = r;
}

std::vector<double> reference(const AttnConfig &c, const AttnInputs &in) {
  const int64_t S = c.S, B = c.B, H = c.heads, KV = c.kvHeads, D = c.headDim;
  std::vector<double> out(size_t(S * B * H * D), 0.0);
  auto qAt = [&](int64_t s, int64_t b, int64_t h) {
    return &in.q[((s * B + b) * H + h) * D];
  };
  auto kvAt = [&](const std::vector<float> &t, int64_t s, int64_t b,
                  int64_t g) { return &t[((s * B + b) * KV + g) * D]; };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / (H / KV); // GQA: kv head of query head h
      std::vector<std::vector<double>> qs(S), ks(S);
      for (int64_t s = 0; s < S; ++s) {
        int64_t pos = in.positions.empty() ? s : in.positions[s * B + b];
        qs[s].assign(qAt(s, b, h), qAt(s, b, h) + D);
        ks[s].assign(kvAt(in.k, s, b, g), kvAt(in.k, s, b, g) + D);
        if (c.rotaryDim > 0) {
          rotate(qs[s], c.rotaryDim, c.theta, pos);
          rotate(ks[s], c.rotaryDim, c.theta, pos);
        }
      }
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> p(size_t(S), 0.0);
        double mx = -INFINITY;
        for (int64_t j = 0; j < S; ++j) {
          if (c.causal && j > i)
            continue;
          double dot = 0.0;
          for (int64_t d = 0; d < D; ++d)
            dot += qs[i][d] * ks[j][d];
          p[j] = dot / std::sqrt(double(D));
          mx = std::max(mx, p[j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j < S; ++j) {
          p[j] = (c.causal && j > i) ? 0.0 : std::exp(p[j] - mx);
          sum += p[j];
        }
        for (int64_t j = 0; j < S; ++j) {
          p[j] /= sum;
          if (c.rate > 0.0) {
            // Element (b, h, i, j) of the global [B, heads, S, S] tensor.
            uint64_t idx = uint64_t(
                (((b + c.batchOffset) * c.gH() + (h + c.headOffset)) * S + i) *
                    S +
                j);
            bool keep = double(sprt_uniform(c.seed, c.stream, idx)) >= c.rate;
            p[j] = keep ? p[j] / (1.0 - c.rate) : 0.0;
          }
        }
        double *o = &out[((i * B + b) * H + h) * D];
        for (int64_t j = 0; j < S; ++j)
          for (int64_t d = 0; d < D; ++d)
            o[d] += p[j] * double(kvAt(in.v, j, b, g)[d]);
      }
    }
  return out;
}

void checkAgainstReference(const std::string &what, const AttnConfig &c,
                           const AttnInputs &in) {
  auto out = runKernel(c, in);
  auto ref = reference(c, in);
  expectClose("attention " + what, out, ref, 1e-5, 1e-5);
}

TEST(Attention, MhaNonCausal) {
  AttnConfig c;
  c.causal = false;
  checkAgainstReference("MHA non-causal", c, makeInputs(c, 100));
}

TEST(Attention, MhaCausal) {
  AttnConfig c;
  checkAgainstReference("MHA causal", c, makeInputs(c, 110));
}

TEST(Attention, GqaCausalAndNonCausal) {
  AttnConfig c;
  c.heads = 4;
  c.kvHeads = 2;
  checkAgainstReference("GQA 4/2 causal", c, makeInputs(c, 120));
  c.causal = false;
  checkAgainstReference("GQA 4/2 non-causal", c, makeInputs(c, 130));
}

TEST(Attention, MqaCausalAndNonCausal) {
  AttnConfig c;
  c.heads = 4;
  c.kvHeads = 1;
  checkAgainstReference("MQA 4/1 causal", c, makeInputs(c, 140));
  c.causal = false;
  checkAgainstReference("MQA 4/1 non-causal", c, makeInputs(c, 150));
}

TEST(Attention, RotaryFull) {
  AttnConfig c;
  c.rotaryDim = c.headDim;
  checkAgainstReference("rotary full, causal", c, makeInputs(c, 160));
  c.causal = false;
  c.kvHeads = 2;
  checkAgainstReference("rotary full, GQA non-causal", c, makeInputs(c, 170));
}

TEST(Attention, RotaryPartial) {
  AttnConfig c;
  c.headDim = 16;
  c.rotaryDim = 4; // GPT-NeoX rotary_pct = 0.25
  checkAgainstReference("rotary 4 of 16, causal", c, makeInputs(c, 180));
  c.rotaryDim = 10;
  c.theta = 500000.0;
  c.causal = false;
  checkAgainstReference("rotary 10 of 16, theta 5e5", c, makeInputs(c, 190));
}

TEST(Attention, RotaryExplicitPositions) {
  AttnConfig c;
  c.rotaryDim = c.headDim;
  c.kvHeads = 2;
  AttnInputs in = makeInputs(c, 200);
  // Different positions per batch element: a far-away sequence chunk and a
  // packed-document restart. At pos ~ 3e4, f32 angles (Hugging Face's
  // convention, which the kernel and the reference both follow) differ from
  // double ones by up to ~2e-3 rad, which moves outputs by ~1e-4 > tolerance:
  // a kernel computing the angles in double would fail this test.
  in.positions.resize(size_t(c.S * c.B));
  for (int64_t s = 0; s < c.S; ++s) {
    in.positions[s * c.B + 0] = 30000 + 7 * s;
    in.positions[s * c.B + 1] = s < 3 ? s : s - 3;
  }
  checkAgainstReference("rotary explicit positions", c, in);
}

TEST(Attention, NullPositionsAreSequenceIndex) {
  AttnConfig c;
  c.rotaryDim = 6;
  AttnInputs in = makeInputs(c, 210);
  auto implicit = runKernel(c, in);
  in.positions.resize(size_t(c.S * c.B));
  sprt_position_ids_i64(in.positions.data(), c.S, c.B, 0);
  expectBitwiseEqual("positions NULL vs 0..S-1", runKernel(c, in), implicit);
  // And positions matter: an offset changes the result.
  sprt_position_ids_i64(in.positions.data(), c.S, c.B, 5);
  auto shifted = runKernel(c, in);
  EXPECT_NE(shifted, implicit);
}

TEST(Attention, GqaEqualsMhaOnRepeatedKv) {
  AttnConfig c;
  c.kvHeads = 2;
  c.rotaryDim = 4;
  AttnInputs in = makeInputs(c, 220);
  auto gqa = runKernel(c, in);
  AttnConfig m = c;
  m.kvHeads = c.heads;
  AttnInputs rep = in;
  const int64_t T = c.S * c.B, factor = c.heads / c.kvHeads;
  rep.k.resize(size_t(T * c.heads * c.headDim));
  rep.v.resize(size_t(T * c.heads * c.headDim));
  sprt_repeat_heads(in.k.data(), rep.k.data(), T, c.kvHeads, c.headDim, factor,
                    4);
  sprt_repeat_heads(in.v.data(), rep.v.data(), T, c.kvHeads, c.headDim, factor,
                    4);
  expectBitwiseEqual("GQA vs MHA on repeated k/v", runKernel(m, rep), gqa);
}

TEST(Attention, Dropout) {
  AttnConfig c;
  c.rate = 0.2;
  c.kvHeads = 2;
  c.rotaryDim = 8;
  checkAgainstReference("dropout 0.2 causal", c, makeInputs(c, 230));
  c.causal = false;
  c.rate = 0.5;
  checkAgainstReference("dropout 0.5 non-causal", c, makeInputs(c, 240));
  // Same inputs, different stream: different output.
  AttnInputs in = makeInputs(c, 240);
  auto a = runKernel(c, in);
  c.stream += 1;
  EXPECT_NE(runKernel(c, in), a);
}

TEST(Attention, LongSequenceRowBlocks) {
  // S beyond the kernel's 128-row query blocks, not a multiple of it.
  AttnConfig c;
  c.S = 300;
  c.B = 1;
  c.heads = 2;
  c.kvHeads = 1;
  c.headDim = 16;
  c.rotaryDim = 16;
  checkAgainstReference("S=300 causal", c, makeInputs(c, 250));
  c.causal = false;
  c.rate = 0.1;
  checkAgainstReference("S=300 non-causal dropout", c, makeInputs(c, 260));
}

// Columns [lo, lo + n) heads of a [S, B, H * D] tensor.
std::vector<float> sliceHeads(const std::vector<float> &x, int64_t T, int64_t H,
                              int64_t D, int64_t lo, int64_t n) {
  std::vector<float> y(size_t(T * n * D));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < n; ++h)
      for (int64_t d = 0; d < D; ++d)
        y[(t * n + h) * D + d] = x[(t * H + lo + h) * D + d];
  return y;
}

// Batches [lo, lo + n) of a [S, B, F] tensor.
template <typename T>
std::vector<T> sliceBatch(const std::vector<T> &x, int64_t S, int64_t B,
                          int64_t F, int64_t lo, int64_t n) {
  std::vector<T> y(size_t(S * n * F));
  for (int64_t s = 0; s < S; ++s)
    for (int64_t b = 0; b < n; ++b)
      for (int64_t f = 0; f < F; ++f)
        y[(s * n + b) * F + f] = x[(s * B + lo + b) * F + f];
  return y;
}

// Heads [2, 4) of a 4-head problem, run alone with head_offset = 2, equal the
// matching slice of the full run (tensor parallelism splits heads).
void checkHeadShard(int64_t kvHeads, double rate, const char *what) {
  AttnConfig full;
  full.heads = 4;
  full.kvHeads = kvHeads;
  full.rotaryDim = 6;
  full.rate = rate;
  AttnInputs in = makeInputs(full, 300);
  in.positions.resize(size_t(full.S * full.B));
  sprt_position_ids_i64(in.positions.data(), full.S, full.B, 11);
  auto fullOut = runKernel(full, in);
  const int64_t T = full.S * full.B, D = full.headDim;

  AttnConfig part = full;
  part.heads = 2;
  part.kvHeads = kvHeads == 4 ? 2 : 1; // kv heads serving query heads 2, 3
  part.globalHeads = 4;
  part.headOffset = 2;
  const int64_t kvLo = kvHeads == 4 ? 2 : (kvHeads == 2 ? 1 : 0);
  AttnInputs pin;
  pin.q = sliceHeads(in.q, T, 4, D, 2, 2);
  pin.k = sliceHeads(in.k, T, kvHeads, D, kvLo, part.kvHeads);
  pin.v = sliceHeads(in.v, T, kvHeads, D, kvLo, part.kvHeads);
  pin.positions = in.positions;
  auto partOut = runKernel(part, pin);
  expectBitwiseEqual(what, partOut, sliceHeads(fullOut, T, 4, D, 2, 2));
  // The sharded run also matches the reference on its own terms.
  checkAgainstReference(what, part, pin);
}

TEST(Attention, HeadShardedMatchesFull) {
  checkHeadShard(4, 0.0, "heads [2,4) of 4, MHA");
  checkHeadShard(2, 0.0, "heads [2,4) of 4, GQA 2 kv");
  checkHeadShard(1, 0.0, "heads [2,4) of 4, MQA");
}

TEST(Attention, HeadShardedMatchesFullWithDropout) {
  checkHeadShard(4, 0.3, "heads [2,4) of 4, MHA, dropout");
  checkHeadShard(2, 0.3, "heads [2,4) of 4, GQA, dropout");
}

TEST(Attention, BatchShardedMatchesFullWithDropout) {
  AttnConfig full;
  full.B = 3;
  full.kvHeads = 2;
  full.rotaryDim = 8;
  full.rate = 0.25;
  AttnInputs in = makeInputs(full, 400);
  auto fullOut = runKernel(full, in);
  AttnConfig part = full;
  part.B = 2;
  part.globalBatch = 3;
  part.batchOffset = 1;
  const int64_t qF = full.heads * full.headDim,
                kvF = full.kvHeads * full.headDim;
  AttnInputs pin;
  pin.q = sliceBatch(in.q, full.S, 3, qF, 1, 2);
  pin.k = sliceBatch(in.k, full.S, 3, kvF, 1, 2);
  pin.v = sliceBatch(in.v, full.S, 3, kvF, 1, 2);
  expectBitwiseEqual("batches [1,3) of 3, dropout", runKernel(part, pin),
                     sliceBatch(fullOut, full.S, 3, qF, 1, 2));
}

TEST(Attention, SingleToken) {
  // S = 1: softmax of one score is 1, out = v (repeated over the group).
  AttnConfig c;
  c.S = 1;
  c.kvHeads = 2;
  c.rotaryDim = 8;
  AttnInputs in = makeInputs(c, 500);
  auto out = runKernel(c, in);
  std::vector<double> ref(out.size());
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t d = 0; d < c.headDim; ++d)
        ref[(b * c.heads + h) * c.headDim + d] =
            in.v[(b * c.kvHeads + h / 2) * c.headDim + d];
  expectClose("attention S=1", out, ref, 1e-6, 0.0);
}

} // namespace

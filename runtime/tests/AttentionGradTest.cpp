//===- AttentionGradTest.cpp - attention backward vs finite differences ---===//
//
// The reference gradient is the fourth-order central difference of a
// double-precision transcription of the forward (the reference of
// AttentionTest.cpp, which checks it against sprt_attention_f32): for a random
// cotangent dO and every coordinate e of q, k and v,
//
//   grad_e = [8 (F(h) - F(-h)) - (F(2h) - F(-2h))] / (12 h),
//   F(s) = <dO, attention(x + s e)>,   h = 1e-3.
//
// Inputs are O(1) and the scores vary on a scale of ~1, so the truncation
// error h^4 / 30 |F^(5)| ~ 1e-13 and the rounding error ~ eps_double |F| / h
// ~ 1e-11: the differences measure the kernel alone. The causal mask and the
// dropout decisions are discrete and do not move under the perturbation; the
// rotary angles are computed in float as the kernel does (the convention is
// Hugging Face's), everything after them in double.
//
// Tolerance: |err| <= 1e-5 + 1e-5 |ref|, as the forward test. The kernel
// recomputes the probabilities in f32 (error ~ a few u relative), and every
// gradient is a sum of at most S * group products through cblas_sgemm and
// the softmax backward's row sums; with O(1) inputs and S <= 300 the
// measured errors are <= 6e-7 (printed by each check: err/tol <= 0.04),
// while a wrong mask, scale, head mapping, rotation direction, dropout
// scaling or index moves gradients by O(0.1).
//
// Sharded runs (a slice of heads or batches with its offsets) do the same
// arithmetic as the matching part of the full run: bitwise equal, except the
// kv gradients of a kv head whose query heads are split across shards
// (MQA), which are partial sums that add up to the full one.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sprt_test;

namespace {

using Vec = std::vector<double>;

struct AttnConfig {
  int64_t S = 7, B = 2, heads = 4, kvHeads = 4, headDim = 8;
  bool causal = true;
  int64_t rotaryDim = 0;
  double theta = 10000.0;
  double rate = 0.0;
  uint64_t seed = 1234, stream = 77;
  int64_t globalBatch = -1, batchOffset = 0, globalHeads = -1, headOffset = 0;

  int64_t gB() const { return globalBatch < 0 ? B : globalBatch; }
  int64_t gH() const { return globalHeads < 0 ? heads : globalHeads; }
  size_t qSize() const { return size_t(S * B * heads * headDim); }
  size_t kvSize() const { return size_t(S * B * kvHeads * headDim); }
};

struct AttnInputs {
  std::vector<float> q, k, v, dout;
  std::vector<int64_t> positions; // empty: NULL
};

AttnInputs makeInputs(const AttnConfig &c, uint32_t seed) {
  AttnInputs in;
  in.q = randomNormals(c.qSize(), seed);
  in.k = randomNormals(c.kvSize(), seed + 1);
  in.v = randomNormals(c.kvSize(), seed + 2);
  in.dout = randomNormals(c.qSize(), seed + 3);
  return in;
}

struct Grads {
  std::vector<float> dq, dk, dv;
};

Grads runGrad(const AttnConfig &c, const AttnInputs &in) {
  Grads g;
  g.dq.assign(c.qSize(), std::nanf(""));
  g.dk.assign(c.kvSize(), std::nanf(""));
  g.dv.assign(c.kvSize(), std::nanf(""));
  sprt_attention_grad_f32(in.dout.data(), in.q.data(), in.k.data(), in.v.data(),
                          in.positions.empty() ? nullptr : in.positions.data(),
                          g.dq.data(), g.dk.data(), g.dv.data(), c.S, c.S, 0,
                          c.B, c.heads, c.kvHeads, c.headDim, c.causal, 0,
                          c.rotaryDim, c.theta, c.rate, c.seed, c.stream,
                          c.gB(), c.batchOffset, c.gH(), c.headOffset, 0);
  return g;
}

// Rotate-half of x[0, rotaryDim) in place, angle in float (Hugging Face).
void rotate(double *x, int64_t rotaryDim, double theta, int64_t pos) {
  const int64_t half = rotaryDim / 2;
  for (int64_t i = 0; i < half; ++i) {
    float invFreq = 1.0f / powf(float(theta), float(2 * i) / float(rotaryDim));
    float angle = float(pos) * invFreq;
    double cs = std::cos(double(angle)), sn = std::sin(double(angle));
    double x1 = x[i], x2 = x[i + half];
    x[i] = x1 * cs - x2 * sn;
    x[i + half] = x2 * cs + x1 * sn;
  }
}

// The forward in double on double inputs q [S, B, H, D], k, v [S, B, KV, D].
Vec forwardRef(const AttnConfig &c, const std::vector<int64_t> &positions,
               const Vec &q, const Vec &k, const Vec &v) {
  const int64_t S = c.S, B = c.B, H = c.heads, KV = c.kvHeads, D = c.headDim;
  Vec out(size_t(S * B * H * D), 0.0);
  Vec qs(size_t(S * D)), ks(size_t(S * D)), p(static_cast<size_t>(S));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / (H / KV);
      for (int64_t s = 0; s < S; ++s) {
        const int64_t pos = positions.empty() ? s : positions[s * B + b];
        for (int64_t d = 0; d < D; ++d) {
          qs[s * D + d] = q[((s * B + b) * H + h) * D + d];
          ks[s * D + d] = k[((s * B + b) * KV + g) * D + d];
        }
        if (c.rotaryDim > 0) {
          rotate(&qs[s * D], c.rotaryDim, c.theta, pos);
          rotate(&ks[s * D], c.rotaryDim, c.theta, pos);
        }
      }
      for (int64_t i = 0; i < S; ++i) {
        const int64_t nk = c.causal ? i + 1 : S;
        double mx = -INFINITY;
        for (int64_t j = 0; j < nk; ++j) {
          double dot = 0.0;
          for (int64_t d = 0; d < D; ++d)
            dot += qs[i * D + d] * ks[j * D + d];
          p[j] = dot / std::sqrt(double(D));
          mx = std::max(mx, p[j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j < nk; ++j) {
          p[j] = std::exp(p[j] - mx);
          sum += p[j];
        }
        double *o = &out[((i * B + b) * H + h) * D];
        for (int64_t j = 0; j < nk; ++j) {
          double pj = p[j] / sum;
          if (c.rate > 0.0) {
            uint64_t idx = uint64_t(
                (((b + c.batchOffset) * c.gH() + (h + c.headOffset)) * S + i) *
                    S +
                j);
            bool keep = double(sprt_uniform(c.seed, c.stream, idx)) >= c.rate;
            pj = keep ? pj / (1.0 - c.rate) : 0.0;
          }
          for (int64_t d = 0; d < D; ++d)
            o[d] += pj * v[((j * B + b) * KV + g) * D + d];
        }
      }
    }
  return out;
}

enum class Wrt { Q, K, V };

// Fourth-order central differences of <dO, forwardRef> with respect to the
// coordinates `coords` of q, k or v (all of them when empty).
Vec fdGradient(const AttnConfig &c, const AttnInputs &in, Wrt wrt,
               const std::vector<size_t> &coords = {}) {
  Vec q(in.q.begin(), in.q.end()), k(in.k.begin(), in.k.end()),
      v(in.v.begin(), in.v.end()), dO(in.dout.begin(), in.dout.end());
  Vec &x = wrt == Wrt::Q ? q : (wrt == Wrt::K ? k : v);
  std::vector<size_t> es = coords;
  if (es.empty())
    for (size_t e = 0; e < x.size(); ++e)
      es.push_back(e);
  const double h = 1e-3;
  Vec g;
  for (size_t e : es) {
    const double x0 = x[e];
    auto at = [&](double s) {
      x[e] = x0 + s;
      Vec y = forwardRef(c, in.positions, q, k, v);
      x[e] = x0;
      return y;
    };
    Vec p1 = at(h), m1 = at(-h), p2 = at(2 * h), m2 = at(-2 * h);
    double acc = 0.0;
    for (size_t i = 0; i < dO.size(); ++i)
      acc += dO[i] * (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i]));
    g.push_back(acc / (12.0 * h));
  }
  return g;
}

void checkAgainstFd(const std::string &what, const AttnConfig &c,
                    const AttnInputs &in) {
  Grads g = runGrad(c, in);
  expectClose("attention grad dq " + what, g.dq, fdGradient(c, in, Wrt::Q),
              1e-5, 1e-5);
  expectClose("attention grad dk " + what, g.dk, fdGradient(c, in, Wrt::K),
              1e-5, 1e-5);
  expectClose("attention grad dv " + what, g.dv, fdGradient(c, in, Wrt::V),
              1e-5, 1e-5);
}

TEST(AttentionGrad, MhaNonCausal) {
  AttnConfig c;
  c.causal = false;
  checkAgainstFd("MHA non-causal", c, makeInputs(c, 100));
}

TEST(AttentionGrad, MhaCausal) {
  AttnConfig c;
  checkAgainstFd("MHA causal", c, makeInputs(c, 110));
}

TEST(AttentionGrad, GqaCausalAndNonCausal) {
  AttnConfig c;
  c.kvHeads = 2;
  checkAgainstFd("GQA 4/2 causal", c, makeInputs(c, 120));
  c.causal = false;
  checkAgainstFd("GQA 4/2 non-causal", c, makeInputs(c, 130));
}

TEST(AttentionGrad, MqaCausalAndNonCausal) {
  AttnConfig c;
  c.kvHeads = 1;
  checkAgainstFd("MQA 4/1 causal", c, makeInputs(c, 140));
  c.causal = false;
  checkAgainstFd("MQA 4/1 non-causal", c, makeInputs(c, 150));
}

TEST(AttentionGrad, RotaryFull) {
  AttnConfig c;
  c.rotaryDim = c.headDim;
  checkAgainstFd("rotary full, causal", c, makeInputs(c, 160));
  c.causal = false;
  c.kvHeads = 2;
  checkAgainstFd("rotary full, GQA non-causal", c, makeInputs(c, 170));
}

TEST(AttentionGrad, RotaryPartial) {
  AttnConfig c;
  c.headDim = 16;
  c.rotaryDim = 4; // GPT-NeoX rotary_pct = 0.25
  checkAgainstFd("rotary 4 of 16, causal", c, makeInputs(c, 180));
  c.rotaryDim = 10;
  c.theta = 500000.0;
  c.causal = false;
  c.kvHeads = 2;
  checkAgainstFd("rotary 10 of 16, theta 5e5, GQA", c, makeInputs(c, 190));
}

TEST(AttentionGrad, RotaryExplicitPositions) {
  AttnConfig c;
  c.rotaryDim = c.headDim;
  c.kvHeads = 2;
  AttnInputs in = makeInputs(c, 200);
  // A far-away sequence chunk (where f32 and f64 angles differ by ~2e-3 rad,
  // so only the float convention passes) and a packed-document restart.
  in.positions.resize(size_t(c.S * c.B));
  for (int64_t s = 0; s < c.S; ++s) {
    in.positions[s * c.B + 0] = 30000 + 7 * s;
    in.positions[s * c.B + 1] = s < 3 ? s : s - 3;
  }
  checkAgainstFd("rotary explicit positions, causal", c, in);
  c.causal = false;
  c.rotaryDim = 6;
  checkAgainstFd("rotary 6 of 8 explicit positions, non-causal", c, in);
}

TEST(AttentionGrad, Dropout) {
  AttnConfig c;
  c.rate = 0.3;
  c.kvHeads = 2;
  c.rotaryDim = 8;
  checkAgainstFd("dropout 0.3 GQA causal", c, makeInputs(c, 230));
  c.causal = false;
  c.kvHeads = 4;
  checkAgainstFd("dropout 0.3 MHA non-causal", c, makeInputs(c, 240));
  // The mask matters: another stream gives other gradients.
  AttnInputs in = makeInputs(c, 240);
  Grads a = runGrad(c, in);
  c.stream += 1;
  EXPECT_NE(runGrad(c, in).dq, a.dq);
}

TEST(AttentionGrad, DropoutRateOneGivesZeroGradients) {
  AttnConfig c;
  c.rate = 1.0; // the output is identically 0
  c.kvHeads = 2;
  AttnInputs in = makeInputs(c, 245);
  Grads g = runGrad(c, in);
  for (const auto *t : {&g.dq, &g.dk, &g.dv})
    for (float x : *t)
      ASSERT_EQ(x, 0.0f);
}

TEST(AttentionGrad, LongSequenceRowBlocks) {
  // S beyond the kernel's 128-row query blocks, not a multiple of it. The
  // finite differences are sampled: the first and last rows, rows at the
  // block boundaries, and a spread of others.
  AttnConfig c;
  c.S = 300;
  c.B = 1;
  c.heads = 2;
  c.kvHeads = 1;
  c.headDim = 8;
  c.rotaryDim = 8;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      c.causal = false;
      c.rate = 0.1;
    }
    AttnInputs in = makeInputs(c, 250 + 10 * pass);
    Grads g = runGrad(c, in);
    const int64_t rowsToCheck[] = {0, 1, 127, 128, 129, 200, 255, 256, 299};
    auto check = [&](const char *name, Wrt wrt, const std::vector<float> &got,
                     int64_t nHeads) {
      std::vector<size_t> coords;
      for (int64_t s : rowsToCheck) {
        const int64_t h = s % nHeads, d = (3 * s) % c.headDim;
        coords.push_back(size_t((s * nHeads + h) * c.headDim + d));
      }
      Vec ref = fdGradient(c, in, wrt, coords);
      std::vector<float> sel;
      for (size_t e : coords)
        sel.push_back(got[e]);
      expectClose(std::string("attention grad S=300 ") + name +
                      (pass ? " non-causal dropout" : " causal"),
                  sel, ref, 1e-5, 1e-5);
    };
    check("dq", Wrt::Q, g.dq, c.heads);
    check("dk", Wrt::K, g.dk, c.kvHeads);
    check("dv", Wrt::V, g.dv, c.kvHeads);
  }
}

// out is linear in v: <dO, out> = <dv, v>. Ties the gradient to the f32
// forward kernel itself (not only to the reference).
TEST(AttentionGrad, VGradientIsAdjointOfForwardKernel) {
  AttnConfig c;
  c.kvHeads = 2;
  c.rotaryDim = 6;
  c.rate = 0.3;
  AttnInputs in = makeInputs(c, 260);
  std::vector<float> out(c.qSize());
  sprt_attention_f32(in.q.data(), in.k.data(), in.v.data(), nullptr, out.data(),
                     c.S, c.S, 0, c.B, c.heads, c.kvHeads, c.headDim, c.causal,
                     0, c.rotaryDim, c.theta, c.rate, c.seed, c.stream, c.gB(),
                     c.batchOffset, c.gH(), c.headOffset);
  Grads g = runGrad(c, in);
  double lhs = 0.0, rhs = 0.0, mag = 0.0;
  for (size_t i = 0; i < out.size(); ++i) {
    lhs += double(in.dout[i]) * out[i];
    mag += std::fabs(double(in.dout[i]) * out[i]);
  }
  for (size_t i = 0; i < in.v.size(); ++i) {
    rhs += double(g.dv[i]) * in.v[i];
    mag += std::fabs(double(g.dv[i]) * in.v[i]);
  }
  std::printf("[ accuracy ] <dO, out> %.9g  <dv, v> %.9g  rel to sum|.| %.3g\n",
              lhs, rhs, std::fabs(lhs - rhs) / mag);
  // Both sides carry the f32 errors of P and of the sums (~1e-6 relative).
  EXPECT_LE(std::fabs(lhs - rhs), 1e-5 * mag);
}

TEST(AttentionGrad, GqaEqualsMhaOnRepeatedKv) {
  // GQA's kv gradients are the MHA gradients on repeated k/v reduced by
  // repeat_heads_grad; dq is the same. Same arithmetic: bitwise.
  for (int64_t kvHeads : {2, 1}) {
    AttnConfig c;
    c.kvHeads = kvHeads;
    c.rotaryDim = 4;
    c.rate = 0.3;
    AttnInputs in = makeInputs(c, 270);
    Grads gqa = runGrad(c, in);
    AttnConfig m = c;
    m.kvHeads = c.heads;
    AttnInputs rep = in;
    const int64_t T = c.S * c.B, factor = c.heads / kvHeads;
    rep.k.resize(m.kvSize());
    rep.v.resize(m.kvSize());
    sprt_repeat_heads(in.k.data(), rep.k.data(), T, kvHeads, c.headDim, factor,
                      4);
    sprt_repeat_heads(in.v.data(), rep.v.data(), T, kvHeads, c.headDim, factor,
                      4);
    Grads mha = runGrad(m, rep);
    std::vector<float> dk(c.kvSize()), dv(c.kvSize());
    sprt_repeat_heads_grad_f32(mha.dk.data(), dk.data(), T, kvHeads, c.headDim,
                               factor);
    sprt_repeat_heads_grad_f32(mha.dv.data(), dv.data(), T, kvHeads, c.headDim,
                               factor);
    const std::string tag = kvHeads == 2 ? "GQA" : "MQA";
    expectBitwiseEqual(tag + " dq vs MHA on repeated kv", gqa.dq, mha.dq);
    expectBitwiseEqual(tag + " dk vs repeat_heads_grad(MHA dk)", gqa.dk, dk);
    expectBitwiseEqual(tag + " dv vs repeat_heads_grad(MHA dv)", gqa.dv, dv);
  }
}

// Heads [lo, lo + n) of a [S, B, H * D] tensor.
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
std::vector<float> sliceBatch(const std::vector<float> &x, int64_t S, int64_t B,
                              int64_t F, int64_t lo, int64_t n) {
  std::vector<float> y(size_t(S * n * F));
  for (int64_t s = 0; s < S; ++s)
    for (int64_t b = 0; b < n; ++b)
      for (int64_t f = 0; f < F; ++f)
        y[(s * n + b) * F + f] = x[(s * B + lo + b) * F + f];
  return y;
}

// The query heads [lo, lo + 2) of a 4-head problem with their kv heads, run
// alone with head_offset = lo.
Grads runHeadShard(const AttnConfig &full, const AttnInputs &in, int64_t lo,
                   AttnConfig *partOut = nullptr,
                   AttnInputs *pinOut = nullptr) {
  const int64_t T = full.S * full.B, D = full.headDim;
  const int64_t group = full.heads / full.kvHeads;
  AttnConfig part = full;
  part.heads = 2;
  part.kvHeads = std::max<int64_t>(1, 2 / group);
  part.globalHeads = full.heads;
  part.headOffset = lo;
  const int64_t kvLo = lo / group;
  AttnInputs pin;
  pin.q = sliceHeads(in.q, T, full.heads, D, lo, 2);
  pin.dout = sliceHeads(in.dout, T, full.heads, D, lo, 2);
  pin.k = sliceHeads(in.k, T, full.kvHeads, D, kvLo, part.kvHeads);
  pin.v = sliceHeads(in.v, T, full.kvHeads, D, kvLo, part.kvHeads);
  pin.positions = in.positions;
  if (partOut)
    *partOut = part;
  if (pinOut)
    *pinOut = pin;
  return runGrad(part, pin);
}

void checkHeadShard(int64_t kvHeads, double rate, const std::string &what) {
  AttnConfig full;
  full.kvHeads = kvHeads;
  full.rotaryDim = 6;
  full.rate = rate;
  AttnInputs in = makeInputs(full, 300);
  in.positions.resize(size_t(full.S * full.B));
  sprt_position_ids_i64(in.positions.data(), full.S, full.B, 11);
  Grads fullG = runGrad(full, in);
  const int64_t T = full.S * full.B, D = full.headDim;

  AttnConfig part;
  AttnInputs pin;
  Grads hi = runHeadShard(full, in, 2, &part, &pin);
  expectBitwiseEqual(what + " dq", hi.dq, sliceHeads(fullG.dq, T, 4, D, 2, 2));
  if (kvHeads >= 2) {
    // Every query head of the shard's kv heads is in the shard.
    const int64_t kvLo = 2 / (4 / kvHeads);
    expectBitwiseEqual(what + " dk", hi.dk,
                       sliceHeads(fullG.dk, T, kvHeads, D, kvLo, part.kvHeads));
    expectBitwiseEqual(what + " dv", hi.dv,
                       sliceHeads(fullG.dv, T, kvHeads, D, kvLo, part.kvHeads));
  } else {
    // MQA: each shard has a partial sum over its query heads; the two shards'
    // add up to the full one up to the rounding of the partial sums
    // (<= 1.5 u of the sum of their magnitudes).
    Grads lo = runHeadShard(full, in, 0);
    for (auto [name, a, b, f] :
         {std::make_tuple("dk", &lo.dk, &hi.dk, &fullG.dk),
          std::make_tuple("dv", &lo.dv, &hi.dv, &fullG.dv)}) {
      std::vector<float> sum(f->size());
      Vec ref(f->begin(), f->end()), scale(f->size());
      for (size_t i = 0; i < f->size(); ++i) {
        sum[i] = (*a)[i] + (*b)[i];
        scale[i] = std::fabs((*a)[i]) + std::fabs((*b)[i]);
      }
      expectClose(what + " " + name + " shards summed", sum, ref, 1e-6, 0.0,
                  &scale);
    }
  }
  // The shard also matches the finite differences on its own terms.
  checkAgainstFd(what, part, pin);
}

TEST(AttentionGrad, HeadShardedMatchesFull) {
  checkHeadShard(4, 0.0, "heads [2,4) of 4, MHA");
  checkHeadShard(2, 0.0, "heads [2,4) of 4, GQA 2 kv");
  checkHeadShard(1, 0.0, "heads [2,4) of 4, MQA");
}

TEST(AttentionGrad, HeadShardedMatchesFullWithDropout) {
  checkHeadShard(4, 0.3, "heads [2,4) of 4, MHA, dropout");
  checkHeadShard(2, 0.3, "heads [2,4) of 4, GQA, dropout");
  checkHeadShard(1, 0.3, "heads [2,4) of 4, MQA, dropout");
}

TEST(AttentionGrad, BatchShardedMatchesFullWithDropout) {
  AttnConfig full;
  full.B = 3;
  full.kvHeads = 2;
  full.rotaryDim = 8;
  full.rate = 0.25;
  AttnInputs in = makeInputs(full, 400);
  Grads fullG = runGrad(full, in);
  AttnConfig part = full;
  part.B = 2;
  part.globalBatch = 3;
  part.batchOffset = 1;
  const int64_t qF = full.heads * full.headDim,
                kvF = full.kvHeads * full.headDim;
  AttnInputs pin;
  pin.q = sliceBatch(in.q, full.S, 3, qF, 1, 2);
  pin.dout = sliceBatch(in.dout, full.S, 3, qF, 1, 2);
  pin.k = sliceBatch(in.k, full.S, 3, kvF, 1, 2);
  pin.v = sliceBatch(in.v, full.S, 3, kvF, 1, 2);
  Grads g = runGrad(part, pin);
  expectBitwiseEqual("batches [1,3) of 3 dq", g.dq,
                     sliceBatch(fullG.dq, full.S, 3, qF, 1, 2));
  expectBitwiseEqual("batches [1,3) of 3 dk", g.dk,
                     sliceBatch(fullG.dk, full.S, 3, kvF, 1, 2));
  expectBitwiseEqual("batches [1,3) of 3 dv", g.dv,
                     sliceBatch(fullG.dv, full.S, 3, kvF, 1, 2));
}

TEST(AttentionGrad, SingleToken) {
  // S = 1: the softmax of one score is 1 whatever q and k, so dq = dk = 0
  // exactly, and dv = the sum of dO over the kv head's query heads.
  AttnConfig c;
  c.S = 1;
  c.kvHeads = 2;
  c.rotaryDim = 8;
  AttnInputs in = makeInputs(c, 500);
  Grads g = runGrad(c, in);
  for (float x : g.dq)
    EXPECT_EQ(x, 0.0f);
  for (float x : g.dk)
    EXPECT_EQ(x, 0.0f);
  Vec ref(g.dv.size(), 0.0);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t d = 0; d < c.headDim; ++d)
        ref[(b * c.kvHeads + h / 2) * c.headDim + d] +=
            in.dout[(b * c.heads + h) * c.headDim + d];
  expectClose("attention grad S=1 dv", g.dv, ref, 1e-7, 0.0);
}

} // namespace

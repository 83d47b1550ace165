//===- AttentionConformanceTest.cpp - fused attention forward, backward ---===//
//
// A double reference written from the header's definition: per (b, h) the
// rotated q and k (rotate-half; inv_freq and the angle in float as Hugging
// Face, cos/sin in double), scores q.k / sqrt(D), causal mask, softmax,
// dropout at the global [B, heads, S, S] index, P v; and its analytic
// backward (dP, dS = P (dP - rowsum(dP P)), the rotation's transpose, kv
// gradients summed over each kv group's query heads).
//
// Shapes exercise the CUDA kernels' tiling: S not a multiple of the 8-row
// blocks or 32-key tiles, head_dim not a multiple of 32, partial rotary,
// GQA and MQA, explicit positions, dropout inside a head and batch shard,
// head_dim up to 256 (the CUDA kernels' dynamic shared memory above 48 KiB).
//
// Bounds: forward 1e-5 + 1e-5 |ref| (as AttentionTest: f32 dot products of
// <= 64 terms and S-term sums of O(1) values, ~1e-6); gradients
// 3e-5 max|ref| + 1e-4 |ref| per tensor (the same f32 sums, twice, and
// dS's difference dP - delta, whose cancellation scales with the largest
// terms rather than with each element).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>

using namespace sprt_conformance;
using sprt_test::expectClose;

namespace {

using Attention = DeviceTest;

struct Config {
  int64_t S = 37, B = 2, heads = 2, kvHeads = 2, D = 16;
  bool causal = true;
  int64_t rotaryDim = 0;
  double theta = 10000.0, rate = 0.0;
  bool positions = false;
  uint64_t seed = 5, stream = 6;
  int64_t batchOffset = 0, globalHeads = -1, headOffset = 0;
  int64_t gH() const { return globalHeads < 0 ? heads : globalHeads; }
};

struct Data {
  std::vector<float> q, k, v, dout;
  std::vector<int64_t> pos;
};

Data makeData(const Config &c) {
  Data d;
  const size_t nq = size_t(c.S * c.B * c.heads * c.D),
               nkv = size_t(c.S * c.B * c.kvHeads * c.D);
  d.q = sprt_test::randomNormals(nq, 101);
  d.k = sprt_test::randomNormals(nkv, 102);
  d.v = sprt_test::randomNormals(nkv, 103);
  d.dout = sprt_test::randomNormals(nq, 104);
  if (c.positions) {
    std::mt19937 gen(105);
    for (int64_t i = 0; i < c.S * c.B; ++i)
      d.pos.push_back(std::uniform_int_distribution<int64_t>(0, 500)(gen));
  }
  return d;
}

struct Rot {
  std::vector<double> cs, sn; // [half] at one position
};

Rot rotAt(const Config &c, int64_t pos) {
  Rot r;
  const int64_t rd = std::min(c.rotaryDim, c.D), half = rd / 2;
  for (int64_t i = 0; i < half; ++i) {
    float invFreq = 1.0f / powf(float(c.theta), float(2 * i) / float(rd));
    float angle = float(pos) * invFreq;
    r.cs.push_back(std::cos(double(angle)));
    r.sn.push_back(std::sin(double(angle)));
  }
  return r;
}

// x[D] rotated (transpose = false) or through the transpose.
std::vector<double> rotate(const std::vector<double> &x, const Rot &r,
                           bool transpose) {
  std::vector<double> o = x;
  const size_t half = r.cs.size();
  const double sgn = transpose ? -1.0 : 1.0;
  for (size_t i = 0; i < half; ++i) {
    o[i] = x[i] * r.cs[i] - sgn * x[i + half] * r.sn[i];
    o[i + half] = x[i + half] * r.cs[i] + sgn * x[i] * r.sn[i];
  }
  return o;
}

struct Result {
  std::vector<double> out, dq, dk, dv;
};

Result reference(const Config &c, const Data &d) {
  const int64_t S = c.S, B = c.B, H = c.heads, KV = c.kvHeads, D = c.D;
  Result r;
  r.out.assign(d.q.size(), 0.0);
  r.dq.assign(d.q.size(), 0.0);
  r.dk.assign(d.k.size(), 0.0);
  r.dv.assign(d.v.size(), 0.0);
  const double scale = 1.0 / std::sqrt(double(D));
  auto row = [&](const std::vector<float> &t, int64_t n, int64_t s, int64_t b,
                 int64_t h) {
    const float *p = &t[((s * B + b) * n + h) * D];
    return std::vector<double>(p, p + D);
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / (H / KV);
      std::vector<Rot> rot;
      std::vector<std::vector<double>> qs, ks, vs, dos;
      for (int64_t s = 0; s < S; ++s) {
        rot.push_back(rotAt(c, d.pos.empty() ? s : d.pos[s * B + b]));
        qs.push_back(rotate(row(d.q, H, s, b, h), rot[s], false));
        ks.push_back(rotate(row(d.k, KV, s, b, g), rot[s], false));
        vs.push_back(row(d.v, KV, s, b, g));
        dos.push_back(row(d.dout, H, s, b, h));
      }
      for (int64_t i = 0; i < S; ++i) {
        const int64_t last = c.causal ? i + 1 : S;
        std::vector<double> p(static_cast<size_t>(last)),
            keep(size_t(last), 1.0);
        double mx = -INFINITY, sum = 0.0;
        for (int64_t j = 0; j < last; ++j) {
          double dot = 0.0;
          for (int64_t e = 0; e < D; ++e)
            dot += qs[i][e] * ks[j][e];
          p[j] = dot * scale;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j < last; ++j)
          sum += (p[j] = std::exp(p[j] - mx));
        for (int64_t j = 0; j < last; ++j) {
          p[j] /= sum;
          if (c.rate > 0.0) {
            const uint64_t idx = uint64_t(
                ((b + c.batchOffset) * c.gH() + h + c.headOffset) * S * S +
                i * S + j);
            keep[j] = double(sprt_uniform(c.seed, c.stream, idx)) >= c.rate
                          ? 1.0 / (1.0 - c.rate)
                          : 0.0;
          }
        }
        // Forward, then dP (through the dropout), delta = rowsum(dP P).
        std::vector<double> dp(static_cast<size_t>(last));
        double delta = 0.0;
        for (int64_t j = 0; j < last; ++j) {
          double dov = 0.0;
          for (int64_t e = 0; e < D; ++e) {
            r.out[((i * B + b) * H + h) * D + e] += p[j] * keep[j] * vs[j][e];
            r.dv[((j * B + b) * KV + g) * D + e] += p[j] * keep[j] * dos[i][e];
            dov += dos[i][e] * vs[j][e];
          }
          dp[j] = dov * keep[j];
          delta += dp[j] * p[j];
        }
        std::vector<double> dqr(size_t(D), 0.0);
        for (int64_t j = 0; j < last; ++j) {
          const double ds = scale * p[j] * (dp[j] - delta);
          std::vector<double> dkr(static_cast<size_t>(D));
          for (int64_t e = 0; e < D; ++e) {
            dqr[e] += ds * ks[j][e];
            dkr[e] = ds * qs[i][e];
          }
          auto dk = rotate(dkr, rot[j], true);
          for (int64_t e = 0; e < D; ++e)
            r.dk[((j * B + b) * KV + g) * D + e] += dk[e];
        }
        auto dq = rotate(dqr, rot[i], true);
        for (int64_t e = 0; e < D; ++e)
          r.dq[((i * B + b) * H + h) * D + e] = dq[e];
      }
    }
  return r;
}

double maxAbs(const std::vector<double> &v) {
  double m = 0.0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

void check(const std::string &what, const Config &c) {
  Data d = makeData(c);
  Result ref = reference(c, d);
  DeviceBuffer<float> dQ(d.q), dK(d.k), dV(d.v), dOut(d.dout),
      out(nans(d.q.size())), dq(nans(d.q.size())), dk(nans(d.k.size())),
      dv(nans(d.v.size()));
  DeviceBuffer<int64_t> pos(d.pos.empty() ? std::vector<int64_t>(1) : d.pos);
  const int64_t *posPtr = d.pos.empty() ? nullptr : pos.get();
  const int64_t gB = c.B + c.batchOffset + 1;
  sprt_attention_f32(dQ, dK, dV, posPtr, out, c.S, c.S, 0, c.B, c.heads,
                     c.kvHeads, c.D, c.causal, 0, c.rotaryDim, c.theta, c.rate,
                     c.seed, c.stream, gB, c.batchOffset, c.gH(), c.headOffset);
  expectClose(what + " out", out.download(), ref.out, 1e-5, 1e-5);
  sprt_attention_grad_f32(dOut, dQ, dK, dV, posPtr, dq, dk, dv, c.S, c.S, 0,
                          c.B, c.heads, c.kvHeads, c.D, c.causal, 0,
                          c.rotaryDim, c.theta, c.rate, c.seed, c.stream, gB,
                          c.batchOffset, c.gH(), c.headOffset, 0);
  expectClose(what + " dq", dq.download(), ref.dq, 1e-4, 3e-5 * maxAbs(ref.dq));
  expectClose(what + " dk", dk.download(), ref.dk, 1e-4, 3e-5 * maxAbs(ref.dk));
  expectClose(what + " dv", dv.download(), ref.dv, 1e-4, 3e-5 * maxAbs(ref.dv));
}

TEST_F(Attention, MhaCausal) { check("mha causal", Config{}); }

TEST_F(Attention, MhaNonCausalOneBlock) {
  Config c;
  c.S = 5;
  c.causal = false;
  check("mha non-causal S=5", c);
}

TEST_F(Attention, GqaRotaryPartialPositionsDropoutInShard) {
  Config c;
  c.S = 41;
  c.heads = 4;
  c.kvHeads = 2;
  c.D = 40;
  c.rotaryDim = 24;
  c.positions = true;
  c.rate = 0.2;
  c.batchOffset = 1;
  c.globalHeads = 8;
  c.headOffset = 2;
  check("gqa rotary dropout shard", c);
}

TEST_F(Attention, MqaNonCausalFullRotaryDropout) {
  Config c;
  c.S = 45;
  c.B = 1;
  c.heads = 3;
  c.kvHeads = 1;
  c.D = 64;
  c.causal = false;
  c.rotaryDim = 64;
  c.theta = 500.0;
  c.rate = 0.1;
  check("mqa non-causal rotary dropout", c);
}

TEST_F(Attention, LongerSequenceManyTiles) {
  Config c;
  c.S = 300;
  c.B = 1;
  c.heads = 2;
  c.kvHeads = 1;
  c.D = 32;
  c.rotaryDim = 32;
  check("causal S=300", c);
}

// Llama-sized heads: four features per lane, and the CUDA backward's
// shared memory past the 48 KiB default (cudaFuncSetAttribute).
TEST_F(Attention, HeadDim128GqaRotaryDropout) {
  Config c;
  c.S = 40;
  c.B = 1;
  c.heads = 4;
  c.kvHeads = 2;
  c.D = 128;
  c.rotaryDim = 128;
  c.theta = 500000.0;
  c.positions = true;
  c.rate = 0.1;
  check("head_dim 128", c);
}

// The largest head the CUDA kernels take: every lane's eight features, and
// the forward's shared memory past 48 KiB too.
TEST_F(Attention, HeadDim256NonCausalPartialRotary) {
  Config c;
  c.S = 33;
  c.B = 1;
  c.heads = 2;
  c.kvHeads = 1;
  c.D = 256;
  c.causal = false;
  c.rotaryDim = 64;
  check("head_dim 256", c);
}

} // namespace

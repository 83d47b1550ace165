//===- RingAttentionConformanceTest.cpp - ring attention's block steps ----===//
//
// sprt_attention_block_f32 / sprt_attention_block_grad_f32 against the plain
// reference, full attention on the whole sequence (sprt_attention_f32 and
// sprt_attention_grad_f32 with Sq == Sk, themselves tested against a
// reference in AttentionConformanceTest). The ring is replayed on one
// device exactly as sprt_op_ring_attention schedules it over n ranks: rank
// r's queries (zigzag chunks r and 2n - 1 - r) meet owner (r - t) mod n's
// key chunks at step t = 0 .. n - 1, a (query chunk, key chunk) pair wholly
// above the causal diagonal skipped, the first pair of a query chunk
// written and the others merged by log-sum-exp; the backward adds every
// pair's dq, dk, dv. Bounds: out and dq 1e-5 |ref| + 2e-6 max|ref|, dk and
// dv 1e-5 |ref| + 4e-6 max|ref| (the merge rescales in double and rounds
// once per block; dk, dv sum the blocks' terms in another order).
//
// Configurations: MHA causal at n = 2 and 4, GQA with rotary, random
// positions and dropout, MQA non-causal with rotary, and packed documents
// (document-causal, positions restarting per document, documents crossing
// chunk boundaries) at n = 4.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

using namespace sprt_conformance;
using sprt_test::expectClose;

namespace {

using RingAttention = DeviceTest;

struct Config {
  int64_t S = 32, B = 2, heads = 2, kvHeads = 2, D = 16, n = 2;
  int32_t causal = 1, documentCausal = 0;
  int64_t rotaryDim = 0;
  double rate = 0.0;
  /// 0: none (global rows); 1: random; 2: packed documents.
  int positions = 0;
};

struct Outputs {
  std::vector<float> out, dq, dk, dv;
};

constexpr double kTheta = 10000.0;
constexpr uint64_t kSeed = 11, kStream = 12;

Outputs full(const Config &c, DeviceBuffer<float> &q, DeviceBuffer<float> &k,
             DeviceBuffer<float> &v, DeviceBuffer<float> &dout,
             const int64_t *pos, size_t nq, size_t nkv) {
  DeviceBuffer<float> out(nans(nq)), dq(nans(nq)), dk(nans(nkv)), dv(nans(nkv));
  sprt_attention_f32(q, k, v, pos, out, c.S, c.S, 0, c.B, c.heads, c.kvHeads,
                     c.D, c.causal, c.documentCausal, c.rotaryDim, kTheta,
                     c.rate, kSeed, kStream, c.B, 0, c.heads, 0);
  sprt_attention_grad_f32(dout, q, k, v, pos, dq, dk, dv, c.S, c.S, 0, c.B,
                          c.heads, c.kvHeads, c.D, c.causal, c.documentCausal,
                          c.rotaryDim, kTheta, c.rate, kSeed, kStream, c.B, 0,
                          c.heads, 0, 0);
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

Outputs ring(const Config &c, DeviceBuffer<float> &q, DeviceBuffer<float> &k,
             DeviceBuffer<float> &v, DeviceBuffer<float> &dout,
             const int64_t *pos, size_t nq, size_t nkv) {
  const int64_t rowQ = c.B * c.heads * c.D, rowK = c.B * c.kvHeads * c.D;
  const int64_t chunk = c.S / (2 * c.n);
  DeviceBuffer<float> out(nans(nq)), lse(nans(size_t(c.S * c.B * c.heads))),
      dq(std::vector<float>(nq, 0.0f)), dk(std::vector<float>(nkv, 0.0f)),
      dv(std::vector<float>(nkv, 0.0f));
  auto chunks = [&](int64_t rank) {
    return std::array<int64_t, 2>{rank * chunk, (2 * c.n - 1 - rank) * chunk};
  };
  auto rowsPos = [&](int64_t row) { return pos ? pos + row * c.B : nullptr; };
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t r = 0; r < c.n; ++r) {
      std::array<bool, 2> written{false, false};
      for (int64_t t = 0; t < c.n; ++t) {
        const int64_t owner = (r - t + c.n) % c.n;
        for (size_t qi = 0; qi < 2; ++qi)
          for (int64_t k0 : chunks(owner)) {
            const int64_t q0 = chunks(r)[qi];
            if (c.causal && k0 > q0 + chunk - 1)
              continue;
            if (pass == 0) {
              sprt_attention_block_f32(
                  q.get() + q0 * rowQ, k.get() + k0 * rowK, v.get() + k0 * rowK,
                  rowsPos(q0), rowsPos(k0), out.get() + q0 * rowQ,
                  lse.get() + q0 * c.B * c.heads, chunk, chunk, q0, k0, c.S,
                  c.B, c.heads, c.kvHeads, c.D, c.causal, c.documentCausal,
                  c.rotaryDim, kTheta, c.rate, kSeed, kStream, 0, c.heads, 0,
                  written[qi] ? 1 : 0);
              written[qi] = true;
            } else {
              sprt_attention_block_grad_f32(
                  dout.get() + q0 * rowQ, q.get() + q0 * rowQ,
                  k.get() + k0 * rowK, v.get() + k0 * rowK, rowsPos(q0),
                  rowsPos(k0), out.get() + q0 * rowQ,
                  lse.get() + q0 * c.B * c.heads, dq.get() + q0 * rowQ,
                  dk.get() + k0 * rowK, dv.get() + k0 * rowK, chunk, chunk, q0,
                  k0, c.S, c.B, c.heads, c.kvHeads, c.D, c.causal,
                  c.documentCausal, c.rotaryDim, kTheta, c.rate, kSeed, kStream,
                  0, c.heads, 0);
            }
          }
      }
    }
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

double maxAbs(const std::vector<float> &v) {
  double m = 0.0;
  for (float x : v)
    m = std::max(m, double(std::fabs(x)));
  return m;
}

/// Position ids of packed documents: each batch row cut into documents of
/// the given lengths (cycled), positions restarting at 0 in each.
std::vector<int64_t> packedPositions(int64_t S, int64_t B,
                                     const std::vector<int64_t> &lengths) {
  std::vector<int64_t> pos(size_t(S * B));
  for (int64_t b = 0; b < B; ++b) {
    size_t doc = size_t(b);
    int64_t p = 0;
    for (int64_t s = 0; s < S; ++s) {
      if (p == lengths[doc % lengths.size()]) {
        p = 0;
        ++doc;
      }
      pos[size_t(s * B + b)] = p++;
    }
  }
  return pos;
}

Outputs check(const std::string &what, const Config &c) {
  const size_t nq = size_t(c.S * c.B * c.heads * c.D),
               nkv = size_t(c.S * c.B * c.kvHeads * c.D);
  DeviceBuffer<float> q(sprt_test::randomNormals(nq, 301)),
      k(sprt_test::randomNormals(nkv, 302)),
      v(sprt_test::randomNormals(nkv, 303)),
      dout(sprt_test::randomNormals(nq, 304));
  std::vector<int64_t> pos(1);
  if (c.positions == 1) {
    std::mt19937 gen(305);
    pos.clear();
    for (int64_t i = 0; i < c.S * c.B; ++i)
      pos.push_back(std::uniform_int_distribution<int64_t>(0, 300)(gen));
  } else if (c.positions == 2) {
    pos = packedPositions(c.S, c.B, {5, 11, 3, 17, 9});
  }
  DeviceBuffer<int64_t> dPos(pos);
  const int64_t *posPtr = c.positions ? dPos.get() : nullptr;
  Outputs ref = full(c, q, k, v, dout, posPtr, nq, nkv);
  Outputs got = ring(c, q, k, v, dout, posPtr, nq, nkv);
  expectClose(what + " out", got.out, toDouble(ref.out), 1e-5,
              2e-6 * maxAbs(ref.out));
  expectClose(what + " dq", got.dq, toDouble(ref.dq), 1e-5,
              2e-6 * maxAbs(ref.dq));
  expectClose(what + " dk", got.dk, toDouble(ref.dk), 1e-5,
              4e-6 * maxAbs(ref.dk));
  expectClose(what + " dv", got.dv, toDouble(ref.dv), 1e-5,
              4e-6 * maxAbs(ref.dv));
  return got;
}

TEST_F(RingAttention, MhaCausalTwoRanks) { check("mha causal n=2", Config{}); }

TEST_F(RingAttention, MhaCausalFourRanks) {
  Config c;
  c.n = 4;
  check("mha causal n=4", c);
}

TEST_F(RingAttention, GqaRotaryPositionsDropout) {
  Config c;
  c.S = 48;
  c.heads = 4;
  c.kvHeads = 2;
  c.D = 24;
  c.rotaryDim = 16;
  c.positions = 1;
  c.rate = 0.1;
  c.n = 4;
  check("gqa rotary positions dropout", c);
}

TEST_F(RingAttention, MqaRotaryNonCausal) {
  Config c;
  c.S = 40;
  c.B = 1;
  c.heads = 3;
  c.kvHeads = 1;
  c.D = 32;
  c.causal = 0;
  c.rotaryDim = 32;
  check("mqa rotary non-causal", c);
}

// Documents of 5, 11, 3, 17, 9 rows cross the chunks' boundaries (chunks of
// 8 rows at n = 4); a query chunk may see no key of a whole block.
TEST_F(RingAttention, PackedDocumentsFourRanks) {
  Config c;
  c.S = 64;
  c.heads = 4;
  c.kvHeads = 2;
  c.rotaryDim = 16;
  c.documentCausal = 1;
  c.positions = 2;
  c.n = 4;
  Outputs got = check("packed documents n=4", c);
  // The mask matters: without it the result differs.
  Config plain = c;
  plain.documentCausal = 0;
  const size_t nq = size_t(c.S * c.B * c.heads * c.D),
               nkv = size_t(c.S * c.B * c.kvHeads * c.D);
  DeviceBuffer<float> q(sprt_test::randomNormals(nq, 301)),
      k(sprt_test::randomNormals(nkv, 302)),
      v(sprt_test::randomNormals(nkv, 303)),
      dout(sprt_test::randomNormals(nq, 304));
  DeviceBuffer<int64_t> dPos(packedPositions(c.S, c.B, {5, 11, 3, 17, 9}));
  Outputs unmasked = ring(plain, q, k, v, dout, dPos, nq, nkv);
  double diff = 0.0;
  for (size_t i = 0; i < got.out.size(); ++i)
    diff = std::max(diff, double(std::fabs(got.out[i] - unmasked.out[i])));
  EXPECT_GT(diff, 1e-2);
}

} // namespace

//===- AttentionPiecesConformanceTest.cpp - attention on query pieces -----===//
//
// Context parallelism runs attention on pieces of the query rows (Sq rows
// from global row q_offset) over the whole sequence of keys (Sk rows). For
// each configuration the full run (Sq == Sk, q_offset 0) is the reference.
// Every piece's out and dq rows do the arithmetic of the same rows of the
// full run (the same scores, softmax, dropout draws at the same global
// index; keys past a piece's causal horizon add exact zeros); dk and dv of
// the pieces (the first written, the others accumulated with
// accumulate_dkv) sum the same terms per piece, then across pieces in f32.
// Bounds: out and dq 1e-6 max|ref| + 1e-5 |ref| (a few ulp: the CPU
// backend's OpenBLAS picks its GEMM kernels and blocking by the GEMM's
// shape, which a piece changes, so a dot product may round differently;
// the CUDA kernels compute each row alone and should match bitwise, but the
// bound is the same for both); dk and dv 2e-6 max|ref| + 1e-5 |ref| (that
// plus the reassociation of <= S f32 terms).
//
// The pieces are those of a zigzag split over 2 ranks ([0, c), [3c, 4c),
// [c, 3c)) and an uneven cut, with dropout on and off, rotary with and
// without explicit positions, GQA and MQA, causal and not.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <random>
#include <utility>

using namespace sprt_conformance;
using sprt_test::expectClose;

namespace {

using AttentionPieces = DeviceTest;

struct Config {
  int64_t S = 24, B = 2, heads = 2, kvHeads = 2, D = 16;
  int32_t causal = 1;
  int64_t rotaryDim = 0;
  double rate = 0.0;
  bool positions = false;
};

struct Outputs {
  std::vector<float> out, dq, dk, dv;
};

/// Runs forward and backward on the query pieces `runs` ({q_offset, rows},
/// covering [0, S) between them), or on the whole sequence when `runs` is
/// empty.
Outputs run(const Config &c,
            const std::vector<std::pair<int64_t, int64_t>> &runs,
            const std::vector<float> &q, const std::vector<float> &k,
            const std::vector<float> &v, const std::vector<float> &dout,
            const std::vector<int64_t> &pos) {
  const int64_t rowQ = c.B * c.heads * c.D;
  DeviceBuffer<float> dQ(q), dK(k), dV(v), dO(dout), out(nans(q.size())),
      dq(nans(q.size())), dk(nans(k.size())), dv(nans(v.size()));
  DeviceBuffer<int64_t> dPos(pos.empty() ? std::vector<int64_t>(1) : pos);
  const int64_t *posPtr = pos.empty() ? nullptr : dPos.get();
  std::vector<std::pair<int64_t, int64_t>> pieces = runs;
  if (pieces.empty())
    pieces.push_back({0, c.S});
  int32_t accumulate = 0;
  for (auto [offset, rows] : pieces) {
    sprt_attention_f32(dQ.get() + offset * rowQ, dK, dV, posPtr,
                       out.get() + offset * rowQ, rows, c.S, offset, c.B,
                       c.heads, c.kvHeads, c.D, c.causal, 0, c.rotaryDim,
                       10000.0, c.rate, 11, 12, c.B, 0, c.heads, 0);
    sprt_attention_grad_f32(dO.get() + offset * rowQ, dQ.get() + offset * rowQ,
                            dK, dV, posPtr, dq.get() + offset * rowQ, dk, dv,
                            rows, c.S, offset, c.B, c.heads, c.kvHeads, c.D,
                            c.causal, 0, c.rotaryDim, 10000.0, c.rate, 11, 12,
                            c.B, 0, c.heads, 0, accumulate);
    accumulate = 1;
  }
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

double maxAbs(const std::vector<float> &v) {
  double m = 0.0;
  for (float x : v)
    m = std::max(m, double(std::fabs(x)));
  return m;
}

void check(const std::string &what, const Config &c) {
  const size_t nq = size_t(c.S * c.B * c.heads * c.D),
               nkv = size_t(c.S * c.B * c.kvHeads * c.D);
  std::vector<float> q = sprt_test::randomNormals(nq, 201),
                     k = sprt_test::randomNormals(nkv, 202),
                     v = sprt_test::randomNormals(nkv, 203),
                     dout = sprt_test::randomNormals(nq, 204);
  std::vector<int64_t> pos;
  if (c.positions) {
    std::mt19937 gen(205);
    for (int64_t i = 0; i < c.S * c.B; ++i)
      pos.push_back(std::uniform_int_distribution<int64_t>(0, 300)(gen));
  }
  Outputs full = run(c, {}, q, k, v, dout, pos);
  const int64_t cs = c.S / 4;
  const std::vector<std::vector<std::pair<int64_t, int64_t>>> splits = {
      {{0, cs}, {3 * cs, c.S - 3 * cs}, {cs, 2 * cs}}, // zigzag over 2
      {{c.S - 5, 5}, {0, 7}, {7, c.S - 12}}};          // uneven, any order
  for (const auto &runs : splits) {
    Outputs got = run(c, runs, q, k, v, dout, pos);
    expectClose(what + " out", got.out, toDouble(full.out), 1e-5,
                1e-6 * maxAbs(full.out));
    expectClose(what + " dq", got.dq, toDouble(full.dq), 1e-5,
                1e-6 * maxAbs(full.dq));
    expectClose(what + " dk", got.dk, toDouble(full.dk), 1e-5,
                2e-6 * maxAbs(full.dk));
    expectClose(what + " dv", got.dv, toDouble(full.dv), 1e-5,
                2e-6 * maxAbs(full.dv));
  }
}

TEST_F(AttentionPieces, MhaCausal) { check("mha causal", Config{}); }

TEST_F(AttentionPieces, MhaCausalDropout) {
  Config c;
  c.rate = 0.25;
  check("mha causal dropout", c);
}

TEST_F(AttentionPieces, GqaRotaryPositionsDropout) {
  Config c;
  c.S = 40;
  c.heads = 4;
  c.kvHeads = 2;
  c.D = 24;
  c.rotaryDim = 16;
  c.positions = true;
  c.rate = 0.1;
  check("gqa rotary positions dropout", c);
}

TEST_F(AttentionPieces, MqaRotaryNoPositionsNonCausal) {
  Config c;
  c.S = 36;
  c.B = 1;
  c.heads = 3;
  c.kvHeads = 1;
  c.D = 32;
  c.causal = 0;
  c.rotaryDim = 32;
  check("mqa rotary non-causal", c);
}

// More query rows than the CPU kernel's 128-row blocks and the CUDA
// kernels' 32-row tiles, so pieces cut blocks at other rows than the full
// run does.
TEST_F(AttentionPieces, LongSequenceRotaryDropout) {
  Config c;
  c.S = 264;
  c.B = 1;
  c.heads = 2;
  c.kvHeads = 1;
  c.D = 16;
  c.rotaryDim = 16;
  c.rate = 0.1;
  check("long rotary dropout", c);
}

TEST_F(AttentionPieces, RowsOutsideTheKeysAreRejected) {
  std::vector<float> x(size_t(4 * 16), 0.0f);
  DeviceBuffer<float> d(x), o(x);
  EXPECT_ANY_THROW(sprt_attention_f32(d, d, d, nullptr, o, 3, 4, 2, 1, 1, 1, 16,
                                      1, 0, 0, 10000.0, 0.0, 1, 2, 1, 0, 1, 0));
}

} // namespace

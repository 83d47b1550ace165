//===- DocumentAttentionConformanceTest.cpp - packed documents ------------===//
//
// Packed documents: a sequence holds several documents one after another,
// the position ids restarting at 0 in each, and attention runs with
// document_causal: query row i sees keys [i - positions[i], i]. The packed
// batch must equal running each document alone (its own rows, B = 1,
// causal, positions 0..L-1, no document mask): out, dq, dk and dv of every
// document's rows. The same on query pieces (the zigzag split over 2 ranks,
// a document spanning the chunks' boundaries), dk and dv accumulated over
// the pieces. Rotary (positions restart with the document) and GQA. Bounds
// as AttentionPiecesConformanceTest: out and dq 1e-6 max|ref| + 1e-5 |ref|
// (the CPU's GEMM shapes differ from the document-alone run), dk and dv
// 2e-6 max|ref| + 1e-5 |ref|.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <utility>

using namespace sprt_conformance;
using sprt_test::expectClose;

namespace {

using DocumentAttention = DeviceTest;

constexpr int64_t kS = 40, kB = 2, kHeads = 4, kKv = 2, kD = 16, kRotary = 16;

struct Outputs {
  std::vector<float> out, dq, dk, dv;
};

/// Forward and backward of [S, B] tensors on the query pieces `runs`
/// ({q_offset, rows}), with `documentCausal` and positions `pos` (none:
/// the global rows).
Outputs run(int64_t S, int64_t B, int32_t documentCausal,
            const std::vector<std::pair<int64_t, int64_t>> &runs,
            const std::vector<float> &q, const std::vector<float> &k,
            const std::vector<float> &v, const std::vector<float> &dout,
            const std::vector<int64_t> &pos) {
  const int64_t rowQ = B * kHeads * kD;
  DeviceBuffer<float> dQ(q), dK(k), dV(v), dO(dout), out(nans(q.size())),
      dq(nans(q.size())), dk(nans(k.size())), dv(nans(v.size()));
  DeviceBuffer<int64_t> dPos(pos.empty() ? std::vector<int64_t>(1) : pos);
  const int64_t *posPtr = pos.empty() ? nullptr : dPos.get();
  int32_t accumulate = 0;
  for (auto [offset, rows] : runs) {
    sprt_attention_f32(dQ.get() + offset * rowQ, dK, dV, posPtr,
                       out.get() + offset * rowQ, rows, S, offset, B, kHeads,
                       kKv, kD, 1, documentCausal, kRotary, 10000.0, 0.0, 11,
                       12, B, 0, kHeads, 0);
    sprt_attention_grad_f32(dO.get() + offset * rowQ, dQ.get() + offset * rowQ,
                            dK, dV, posPtr, dq.get() + offset * rowQ, dk, dv,
                            rows, S, offset, B, kHeads, kKv, kD, 1,
                            documentCausal, kRotary, 10000.0, 0.0, 11, 12, B, 0,
                            kHeads, 0, accumulate);
    accumulate = 1;
  }
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

/// Rows [s0, s0 + n) of batch row b of an [S, B, width] tensor.
std::vector<float> rowsOf(const std::vector<float> &x, int64_t width, int64_t b,
                          int64_t s0, int64_t n) {
  std::vector<float> r;
  for (int64_t s = s0; s < s0 + n; ++s)
    r.insert(r.end(), x.begin() + (s * kB + b) * width,
             x.begin() + (s * kB + b + 1) * width);
  return r;
}

double maxAbs(const std::vector<float> &v) {
  double m = 0.0;
  for (float x : v)
    m = std::max(m, double(std::fabs(x)));
  return m;
}

void checkAgainstDocuments(const std::string &what, const Outputs &packed,
                           const std::vector<float> &q,
                           const std::vector<float> &k,
                           const std::vector<float> &v,
                           const std::vector<float> &dout) {
  // Document lengths of each batch row (summing to kS).
  const std::vector<std::vector<int64_t>> docs = {{7, 13, 20}, {1, 24, 15}};
  const int64_t wq = kHeads * kD, wkv = kKv * kD;
  for (int64_t b = 0; b < kB; ++b) {
    int64_t s0 = 0;
    for (int64_t len : docs[size_t(b)]) {
      Outputs alone =
          run(len, 1, 0, {{0, len}}, rowsOf(q, wq, b, s0, len),
              rowsOf(k, wkv, b, s0, len), rowsOf(v, wkv, b, s0, len),
              rowsOf(dout, wq, b, s0, len), {});
      const std::string at = what + " batch " + std::to_string(b) +
                             " document at " + std::to_string(s0);
      expectClose(at + " out", rowsOf(packed.out, wq, b, s0, len),
                  toDouble(alone.out), 1e-5, 1e-6 * maxAbs(packed.out));
      expectClose(at + " dq", rowsOf(packed.dq, wq, b, s0, len),
                  toDouble(alone.dq), 1e-5, 1e-6 * maxAbs(packed.dq));
      expectClose(at + " dk", rowsOf(packed.dk, wkv, b, s0, len),
                  toDouble(alone.dk), 1e-5, 2e-6 * maxAbs(packed.dk));
      expectClose(at + " dv", rowsOf(packed.dv, wkv, b, s0, len),
                  toDouble(alone.dv), 1e-5, 2e-6 * maxAbs(packed.dv));
      s0 += len;
    }
  }
}

TEST_F(DocumentAttention, PackedBatchEqualsEachDocumentAlone) {
  const size_t nq = size_t(kS * kB * kHeads * kD),
               nkv = size_t(kS * kB * kKv * kD);
  std::vector<float> q = sprt_test::randomNormals(nq, 301),
                     k = sprt_test::randomNormals(nkv, 302),
                     v = sprt_test::randomNormals(nkv, 303),
                     dout = sprt_test::randomNormals(nq, 304);
  // Positions [S, B]: 0 at each document's start.
  const std::vector<std::vector<int64_t>> docs = {{7, 13, 20}, {1, 24, 15}};
  std::vector<int64_t> pos(size_t(kS * kB));
  for (int64_t b = 0; b < kB; ++b) {
    int64_t s = 0;
    for (int64_t len : docs[size_t(b)])
      for (int64_t i = 0; i < len; ++i, ++s)
        pos[size_t(s * kB + b)] = i;
  }
  Outputs whole = run(kS, kB, 1, {{0, kS}}, q, k, v, dout, pos);
  checkAgainstDocuments("whole", whole, q, k, v, dout);
  // The zigzag split over 2 ranks (chunks of 10 rows: the documents at 7
  // and 20 (row 0) and at 1 (row 1) span chunk boundaries), then an uneven
  // cut.
  for (const auto &runs : std::vector<std::vector<std::pair<int64_t, int64_t>>>{
           {{0, 10}, {30, 10}, {10, 20}}, {{33, 7}, {0, 9}, {9, 24}}}) {
    Outputs pieces = run(kS, kB, 1, runs, q, k, v, dout, pos);
    checkAgainstDocuments("pieces", pieces, q, k, v, dout);
  }
  // Without the document mask the packed batch is one causal sequence: a
  // later document's rows differ from the document alone.
  Outputs causal = run(kS, kB, 0, {{0, kS}}, q, k, v, dout, pos);
  std::vector<float> got = rowsOf(causal.out, kHeads * kD, 0, 7, 13),
                     want = rowsOf(whole.out, kHeads * kD, 0, 7, 13);
  double diff = 0.0;
  for (size_t i = 0; i < got.size(); ++i)
    diff = std::max(diff, double(std::fabs(got[i] - want[i])));
  EXPECT_GT(diff, 1e-3);
}

} // namespace

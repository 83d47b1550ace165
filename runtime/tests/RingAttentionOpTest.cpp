//===- RingAttentionOpTest.cpp - ring attention over mpirun ranks ---------===//
//
// Run with 2 and 4 ranks (one context axis over all of them). Each rank
// gives sprt_op_ring_attention(_grad) its zigzag part of q, k, v, dout and
// positions; the K/V blocks (and dK/dV) travel between the processes by
// send/recv. The reference is the one-rank kernel on the whole sequence:
// this rank's rows of out, dq, dk and dv within the bounds of
// RingAttentionConformanceTest.cpp. Also the bytes each rank counts on the
// axis: forward (n - 1) (2 |kv| + |pos|), backward that plus n 2 |kv|.
//
//===----------------------------------------------------------------------===//

#include "CollectiveTestUtil.h"
#include "KernelTestUtil.h"

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {
using sprt_test::lineMesh;
using sprt_test::worldSize;

/// The global row of local row `i` of rank r's zigzag part (2c rows).
int64_t zigzagRow(int64_t i, int64_t c, int64_t n, int64_t r) {
  return i < c ? r * c + i : (2 * n - 1 - r) * c + (i - c);
}

double maxAbs(const std::vector<float> &v) {
  double m = 0.0;
  for (float x : v)
    m = std::max(m, double(std::fabs(x)));
  return m;
}

/// Rows of `global` ([L, row] elements) at this rank's zigzag rows.
template <typename T>
std::vector<T> part(const std::vector<T> &global, int64_t row, int64_t S,
                    int64_t c, int64_t n, int64_t r) {
  std::vector<T> out(size_t(S * row));
  for (int64_t i = 0; i < S; ++i)
    std::copy_n(global.begin() + zigzagRow(i, c, n, r) * row, row,
                out.begin() + i * row);
  return out;
}

std::vector<double> wide(const std::vector<float> &v) {
  return std::vector<double>(v.begin(), v.end());
}

TEST(RingAttentionOp, MatchesTheOneRankRun) {
  lineMesh();
  const int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t L = 12 * n, B = 2, heads = 4, kvHeads = 2, D = 8;
  const int64_t rotary = 8, S = L / n, c = L / (2 * n);
  const int64_t rowQ = B * heads * D, rowK = B * kvHeads * D;
  std::vector<float> q = sprt_test::randomNormals(size_t(L * rowQ), 1),
                     k = sprt_test::randomNormals(size_t(L * rowK), 2),
                     v = sprt_test::randomNormals(k.size(), 3),
                     dout = sprt_test::randomNormals(q.size(), 4);
  // Packed documents of 7, 5, 13, 3 rows (crossing the chunks) in batch row
  // 0, of 9, 4 rows in batch row 1.
  std::vector<int64_t> docs(size_t(L * B));
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<int64_t> lengths =
        b == 0 ? std::vector<int64_t>{7, 5, 13, 3} : std::vector<int64_t>{9, 4};
    int64_t p = 0;
    size_t d = 0;
    for (int64_t s = 0; s < L; ++s) {
      if (p == lengths[d % lengths.size()]) {
        p = 0;
        ++d;
      }
      docs[size_t(s * B + b)] = p++;
    }
  }
  sprt_set_seed(3);
  struct Case {
    const int64_t *positions;
    int32_t documentCausal;
    double rate;
  };
  for (Case cs : {Case{nullptr, 0, 0.0}, Case{nullptr, 0, 0.2},
                  Case{docs.data(), 1, 0.0}, Case{docs.data(), 1, 0.2}}) {
    const uint64_t key = sprt_dropout_key();
    std::vector<float> out(q.size()), dq(q.size()), dk(k.size()), dv(k.size());
    sprt_attention_f32(q.data(), k.data(), v.data(), cs.positions, out.data(),
                       L, L, 0, B, heads, kvHeads, D, 1, cs.documentCausal,
                       rotary, 10000.0, cs.rate, key, 5, B, 0, heads, 0);
    sprt_attention_grad_f32(
        dout.data(), q.data(), k.data(), v.data(), cs.positions, dq.data(),
        dk.data(), dv.data(), L, L, 0, B, heads, kvHeads, D, 1,
        cs.documentCausal, rotary, 10000.0, cs.rate, key, 5, B, 0, heads, 0, 0);
    std::vector<float> ql = part(q, rowQ, S, c, n, r),
                       kl = part(k, rowK, S, c, n, r),
                       vl = part(v, rowK, S, c, n, r),
                       dol = part(dout, rowQ, S, c, n, r);
    std::vector<int64_t> posl;
    if (cs.positions)
      posl = part(docs, B, S, c, n, r);
    const int64_t *posPtr = cs.positions ? posl.data() : nullptr;
    std::vector<float> outl(ql.size(), NAN), lse(size_t(S * B * heads), NAN),
        dql(ql.size(), NAN), dkl(kl.size(), NAN), dvl(kl.size(), NAN);
    sprt_reset_bytes_sent();
    const sprt_attention_args args{
        S,       B, heads, kvHeads,           D,  rotary, 10000.0,
        cs.rate, 5, 1,     cs.documentCausal, -1, -1,     0};
    sprt_op_ring_attention(ql.data(), kl.data(), vl.data(), posPtr, outl.data(),
                           lse.data(), &args);
    const int64_t kvBytes = int64_t(kl.size() * sizeof(float)),
                  posBytes = cs.positions ? S * B * 8 : 0;
    EXPECT_EQ(sprt_bytes_sent(0), (n - 1) * (2 * kvBytes + posBytes));
    sprt_op_ring_attention_grad(dol.data(), ql.data(), kl.data(), vl.data(),
                                posPtr, outl.data(), lse.data(), dql.data(),
                                dkl.data(), dvl.data(), &args);
    EXPECT_EQ(sprt_bytes_sent(0),
              2 * (n - 1) * (2 * kvBytes + posBytes) + n * 2 * kvBytes);
    const std::string what = std::string(cs.positions ? "documents" : "index") +
                             " rate " + std::to_string(cs.rate);
    sprt_test::expectClose(what + " out", outl,
                           wide(part(out, rowQ, S, c, n, r)), 1e-5,
                           2e-6 * maxAbs(out));
    sprt_test::expectClose(what + " dq", dql, wide(part(dq, rowQ, S, c, n, r)),
                           1e-5, 2e-6 * maxAbs(dq));
    sprt_test::expectClose(what + " dk", dkl, wide(part(dk, rowK, S, c, n, r)),
                           1e-5, 4e-6 * maxAbs(dk));
    sprt_test::expectClose(what + " dv", dvl, wide(part(dv, rowK, S, c, n, r)),
                           1e-5, 4e-6 * maxAbs(dv));
  }
}

} // namespace

//===- AttentionSavedStatsConformanceTest.cpp - attention's backward from
//    the forward's result and statistics ----------------------------===//
//
// sprt_attention_lse_f32, sprt_attention_grad_lse_f32 and their typed
// variants (the calls of tfm-save-attention-stats' forward and backward):
// - lse is the natural log of each query row's softmax denominator over
//   the scaled, masked scores, against a double-precision host reference;
// - on the CPU backend and the CUDA backend's native kernels they are the
//   f32 calls (sprt_attention_lse_f32, sprt_attention_grad_lse_f32)
//   between conversions, bit for bit; those add dk and dv onto what is
//   there when asked (a run per piece of the query rows);
// - they agree with the calls that recompute the forward
//   (sprt_attention_f32, _grad_f32, and the typed ones): the f32 forward
//   bit for bit (one kernel), the gradients within 4e-6 of the largest
//   value in f32, everything within two roundings of the stored type, on
//   every case: GPT-2's shape, Llama's (GQA,
//   rotary), packed documents, a query piece with an offset, attention
//   dropout (the same draws in both: the backward's mask is the forward's);
// - on cuDNN, the forward's out is the recomputing call's bit for bit (one
//   plan, the same inputs) and the backward from the saved statistics is
//   within 1e-2 of the largest gradient of the recomputing backward (skipped
//   where the backend has no cuDNN path).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cmath>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::randomFloats;

namespace {

using AttentionSavedStats = DeviceTest;

struct Config {
  std::string name;
  int64_t S = 40, B = 2, heads = 4, kvHeads = 4, D = 16, rotary = 0;
  int64_t Sq = 0, qOffset = 0; // a query piece (Sq 0: all S rows)
  bool causal = true, documents = false;
  double rate = 0.0;
  int64_t rows() const { return Sq ? Sq : S; }
};

std::vector<Config> configs() {
  std::vector<Config> all;
  Config gpt2{"gpt2"};
  all.push_back(gpt2);
  Config llama{"llama gqa rotary"};
  llama.heads = 8;
  llama.kvHeads = 2;
  llama.rotary = 16;
  all.push_back(llama);
  Config docs = llama;
  docs.name = "documents";
  docs.documents = true;
  all.push_back(docs);
  Config piece = gpt2;
  piece.name = "query piece";
  piece.Sq = 16;
  piece.qOffset = 20;
  all.push_back(piece);
  Config bidirectional = gpt2;
  bidirectional.name = "not causal";
  bidirectional.causal = false;
  all.push_back(bidirectional);
  Config dropout = llama;
  dropout.name = "dropout";
  dropout.rate = 0.1;
  all.push_back(dropout);
  return all;
}

const int64_t kDocumentLengths[4] = {9, 17, 4, 30};

struct Values {
  std::vector<float> q, k, v, dout;
  Values(const Config &c, int32_t t)
      : q(asStored(randomFloats(size_t(c.rows() * c.B * c.heads * c.D), 11),
                   t)),
        k(asStored(randomFloats(size_t(c.S * c.B * c.kvHeads * c.D), 12), t)),
        v(asStored(randomFloats(size_t(c.S * c.B * c.kvHeads * c.D), 13), t)),
        dout(asStored(randomFloats(size_t(c.rows() * c.B * c.heads * c.D), 14),
                      t)) {}
};

struct Results {
  std::vector<float> out, lse, dq, dk, dv;
};

/// The saved-statistics calls on the values stored in `t`.
Results runSaved(const Config &c, const Values &x, const int64_t *pos,
                 int32_t t) {
  const size_t nq = x.q.size(), nkv = x.k.size();
  TypedBuffer q(x.q, t), k(x.k, t), v(x.v, t), dout(x.dout, t),
      out(nans(nq), t), dq(nans(nq), t), dk(nans(nkv), t), dv(nans(nkv), t);
  DeviceBuffer<float> lse(nans(size_t(c.rows() * c.B * c.heads)));
  sprt_attention_lse_typed(q.get(), k.get(), v.get(), pos, out.get(), lse,
                           c.rows(), c.S, c.qOffset, c.B, c.heads, c.kvHeads,
                           c.D, c.causal, c.documents, c.rotary, 10000.0,
                           c.rate, 7, 3, c.B, 0, c.heads, 0, t);
  sprt_attention_grad_lse_typed(dout.get(), q.get(), k.get(), v.get(), pos,
                                out.get(), lse, dq.get(), dk.get(), dv.get(),
                                c.rows(), c.S, c.qOffset, c.B, c.heads,
                                c.kvHeads, c.D, c.causal, c.documents, c.rotary,
                                10000.0, c.rate, 7, 3, c.B, 0, c.heads, 0, t);
  return {out.download(), lse.download(), dq.download(), dk.download(),
          dv.download()};
}

/// The f32 calls on the widened values (dk and dv added onto `dkv0` when
/// given), results rounded to `t` (f32: as they are).
Results runF32(const Config &c, const Values &x, const int64_t *pos, int32_t t,
               const std::vector<float> *dkv0 = nullptr) {
  const size_t nq = x.q.size(), nkv = x.k.size();
  DeviceBuffer<float> q(x.q), k(x.k), v(x.v), dout(x.dout), out(nans(nq)),
      lse(nans(size_t(c.rows() * c.B * c.heads))), dq(nans(nq)),
      dk(dkv0 ? *dkv0 : nans(nkv)), dv(dkv0 ? *dkv0 : nans(nkv));
  sprt_attention_lse_f32(q, k, v, pos, out, lse, c.rows(), c.S, c.qOffset, c.B,
                         c.heads, c.kvHeads, c.D, c.causal, c.documents,
                         c.rotary, 10000.0, c.rate, 7, 3, c.B, 0, c.heads, 0);
  // The backward reads the forward's out as the typed call does: stored.
  DeviceBuffer<float> saved(asStored(out.download(), t));
  sprt_attention_grad_lse_f32(dout, q, k, v, pos, saved, lse, dq, dk, dv,
                              c.rows(), c.S, c.qOffset, c.B, c.heads, c.kvHeads,
                              c.D, c.causal, c.documents, c.rotary, 10000.0,
                              c.rate, 7, 3, c.B, 0, c.heads, 0, dkv0 ? 1 : 0);
  return {asStored(out.download(), t), lse.download(),
          asStored(dq.download(), t), asStored(dk.download(), t),
          asStored(dv.download(), t)};
}

/// The calls that recompute the forward, on the values stored in `t` (f32:
/// sprt_attention_f32 and sprt_attention_grad_f32).
Results runRecomputing(const Config &c, const Values &x, const int64_t *pos,
                       int32_t t) {
  const size_t nq = x.q.size(), nkv = x.k.size();
  if (t == kF32) {
    DeviceBuffer<float> q(x.q), k(x.k), v(x.v), dout(x.dout), out(nans(nq)),
        dq(nans(nq)), dk(nans(nkv)), dv(nans(nkv));
    sprt_attention_f32(q, k, v, pos, out, c.rows(), c.S, c.qOffset, c.B,
                       c.heads, c.kvHeads, c.D, c.causal, c.documents, c.rotary,
                       10000.0, c.rate, 7, 3, c.B, 0, c.heads, 0);
    sprt_attention_grad_f32(dout, q, k, v, pos, dq, dk, dv, c.rows(), c.S,
                            c.qOffset, c.B, c.heads, c.kvHeads, c.D, c.causal,
                            c.documents, c.rotary, 10000.0, c.rate, 7, 3, c.B,
                            0, c.heads, 0, 0);
    return {out.download(), {}, dq.download(), dk.download(), dv.download()};
  }
  TypedBuffer q(x.q, t), k(x.k, t), v(x.v, t), dout(x.dout, t),
      out(nans(nq), t), dq(nans(nq), t), dk(nans(nkv), t), dv(nans(nkv), t);
  sprt_attention_typed(q.get(), k.get(), v.get(), pos, out.get(), c.rows(), c.S,
                       c.qOffset, c.B, c.heads, c.kvHeads, c.D, c.causal,
                       c.documents, c.rotary, 10000.0, c.rate, 7, 3, c.B, 0,
                       c.heads, 0, t);
  sprt_attention_grad_typed(
      dout.get(), q.get(), k.get(), v.get(), pos, dq.get(), dk.get(), dv.get(),
      c.rows(), c.S, c.qOffset, c.B, c.heads, c.kvHeads, c.D, c.causal,
      c.documents, c.rotary, 10000.0, c.rate, 7, 3, c.B, 0, c.heads, 0, t);
  return {out.download(), {}, dq.download(), dk.download(), dv.download()};
}

/// log of each row's softmax denominator, in double, for configurations
/// without rotary; -inf where a row sees no key.
std::vector<double> hostLse(const Config &c, const Values &x,
                            const std::vector<int64_t> &positions) {
  std::vector<double> lse(size_t(c.rows() * c.B * c.heads));
  const double scale = 1.0 / std::sqrt(double(c.D));
  const int64_t group = c.heads / c.kvHeads;
  for (int64_t i = 0; i < c.rows(); ++i)
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t h = 0; h < c.heads; ++h) {
        const int64_t row = c.qOffset + i;
        int64_t first = 0, last = c.causal ? row + 1 : c.S;
        if (c.documents)
          first = row - positions[size_t(row * c.B + b)];
        double m = -INFINITY;
        std::vector<double> s;
        for (int64_t j = first; j < last; ++j) {
          double dot = 0.0;
          for (int64_t d = 0; d < c.D; ++d)
            dot +=
                double(x.q[size_t(((i * c.B + b) * c.heads + h) * c.D + d)]) *
                x.k[size_t(((j * c.B + b) * c.kvHeads + h / group) * c.D + d)];
          s.push_back(dot * scale);
          m = std::max(m, s.back());
        }
        double sum = 0.0;
        for (double e : s)
          sum += std::exp(e - m);
        lse[size_t((i * c.B + b) * c.heads + h)] =
            s.empty() ? -INFINITY : m + std::log(sum);
      }
  return lse;
}

/// got within `rel` of want's largest magnitude, element by element.
void expectNear(const std::string &what, const std::vector<float> &got,
                const std::vector<float> &want, double rel) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0.0;
  for (float w : want)
    scale = std::max(scale, double(std::fabs(w)));
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= rel * scale) && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", expected " << want[i] << " (within " << rel * scale
                    << ")";
  EXPECT_EQ(bad, 0u) << what;
}

TEST_F(AttentionSavedStats, TypedIsTheF32CallBetweenConversions) {
  sprt_attention_select(kF32, "native");
  for (const Config &c : configs())
    for (int32_t t : {kBf16, kF16}) {
      const std::string what = c.name + " " + nameOf(t);
      const Values x(c, t);
      std::vector<int64_t> p = documentPositions(c.S, c.B, kDocumentLengths);
      DeviceBuffer<int64_t> positions(p);
      const int64_t *pos = c.documents ? positions.get() : nullptr;
      const Results got = runSaved(c, x, pos, t), want = runF32(c, x, pos, t);
      expectBitwiseEqual(what + " out", got.out, want.out);
      expectBitwiseEqual(what + " lse", got.lse, want.lse);
      expectBitwiseEqual(what + " dq", got.dq, want.dq);
      expectBitwiseEqual(what + " dk", got.dk, want.dk);
      expectBitwiseEqual(what + " dv", got.dv, want.dv);
    }
}

TEST_F(AttentionSavedStats, LseIsTheLogOfTheSoftmaxDenominator) {
  sprt_attention_select(kF32, "native");
  for (const Config &c : configs()) {
    if (c.rotary)
      continue; // the reference rotates nothing
    const Values x(c, kBf16);
    std::vector<int64_t> p = documentPositions(c.S, c.B, kDocumentLengths);
    DeviceBuffer<int64_t> positions(p);
    const Results got =
        runSaved(c, x, c.documents ? positions.get() : nullptr, kBf16);
    const std::vector<double> want = hostLse(c, x, p);
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (!(std::fabs(got.lse[i] - want[i]) <=
            1e-5 * (1.0 + std::fabs(want[i]))) &&
          bad++ == 0)
        ADD_FAILURE() << c.name << ": lse[" << i << "] is " << got.lse[i]
                      << ", the double reference " << want[i];
    EXPECT_EQ(bad, 0u) << c.name;
  }
}

TEST_F(AttentionSavedStats, F32AddsKeyAndValueGradientsWhenAsked) {
  sprt_attention_select(kF32, "native");
  for (const Config &c : configs()) {
    const Values x(c, kF32);
    DeviceBuffer<int64_t> positions(
        documentPositions(c.S, c.B, kDocumentLengths));
    const int64_t *pos = c.documents ? positions.get() : nullptr;
    const std::vector<float> base = randomFloats(x.k.size(), 21);
    const Results written = runF32(c, x, pos, kF32),
                  added = runF32(c, x, pos, kF32, &base);
    std::vector<float> dk(base), dv(base);
    for (size_t i = 0; i < base.size(); ++i) {
      dk[i] += written.dk[i];
      dv[i] += written.dv[i];
    }
    expectBitwiseEqual(c.name + " dq", added.dq, written.dq);
    expectNear(c.name + " dk", added.dk, dk, 1e-6);
    expectNear(c.name + " dv", added.dv, dv, 1e-6);
  }
}

TEST_F(AttentionSavedStats, AgreeWithTheCallsThatRecompute) {
  sprt_attention_select(kF32, "native");
  for (const Config &c : configs())
    for (int32_t t : {kF32, kBf16, kF16}) {
      const std::string what = c.name + " " + nameOf(t);
      const Values x(c, t);
      DeviceBuffer<int64_t> positions(
          documentPositions(c.S, c.B, kDocumentLengths));
      const int64_t *pos = c.documents ? positions.get() : nullptr;
      const Results got = t == kF32 ? runF32(c, x, pos, t)
                                    : runSaved(c, x, pos, t),
                    want = runRecomputing(c, x, pos, t);
      // Each is the f32 value rounded once; the f32 values differ in their
      // last bits (another order of the same sums): two roundings apart.
      // f32 itself: within 1e-6 of the largest value (out) and 4e-6 (the
      // gradients), sums of at most S terms in another order.
      const double tol = t == kF32 ? 1e-6 : 2 * unitRoundoff(t);
      // f32: one forward kernel, which also writes lse.
      if (t == kF32)
        expectBitwiseEqual(what + " out", got.out, want.out);
      else
        expectNear(what + " out", got.out, want.out, tol);
      expectNear(what + " dq", got.dq, want.dq, 4 * tol);
      expectNear(what + " dk", got.dk, want.dk, 4 * tol);
      expectNear(what + " dv", got.dv, want.dv, 4 * tol);
    }
}

TEST_F(AttentionSavedStats, OnCudnnSkipTheForward) {
  const NativeAttentionAfter restore;
  const std::string line = sprt_attention_select(kBf16, "cudnn");
  if (line.rfind("cudnn", 0) != 0)
    GTEST_SKIP() << "no cuDNN attention: " << line;
  for (Config c : configs()) {
    c.D = 64; // a shape cuDNN runs
    c.rotary = c.rotary ? 64 : 0;
    const std::string what = c.name + " cudnn";
    const Values x(c, kBf16);
    DeviceBuffer<int64_t> positions(
        documentPositions(c.S, c.B, kDocumentLengths));
    const int64_t *pos = c.documents ? positions.get() : nullptr;
    const Results got = runSaved(c, x, pos, kBf16),
                  want = runRecomputing(c, x, pos, kBf16);
    expectBitwiseEqual(what + " out", got.out, want.out);
    expectNear(what + " dq", got.dq, want.dq, 1e-2);
    expectNear(what + " dk", got.dk, want.dk, 1e-2);
    expectNear(what + " dv", got.dv, want.dv, 1e-2);
  }
}

} // namespace

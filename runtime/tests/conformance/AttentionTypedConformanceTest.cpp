//===- AttentionTypedConformanceTest.cpp - attention on stored dtypes -----===//
//
// sprt_attention_typed and sprt_attention_grad_typed on bf16 / f16 tensors
// are the f32 kernels on the widened tensors, each result rounded once to
// its dtype: what sp-legalize-precision's conversions around the f32 kernel
// computed before attention kept its storage type. On the CPU backend and
// on the CUDA backend's native kernels (the default until
// sprt_attention_select) that holds bit for bit. On cuDNN (the CUDA
// backend's default for bf16 / f16 programs) the typed call must give the
// f32 call's cuDNN results: its forward bit for bit (the same plan on the
// same bf16 inputs; rotary applied in f32 to the same values), its
// backward within 1e-2 of the largest gradient (cuDNN's backward may sum
// dq in another order from run to run); that case is skipped where the
// backend has no cuDNN path. Cases: GPT-2's shape (no rotary, heads ==
// kv_heads), Llama's (GQA, rotary), packed documents, a query piece with
// an offset, attention dropout. The head reshapes (sprt_qkv_split,
// sprt_qkv_concat, sprt_repeat_heads) move 2-byte elements exactly.
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

using AttentionTyped = DeviceTest;

struct Config {
  std::string name;
  int64_t S = 48, B = 2, heads = 4, kvHeads = 4, D = 16, rotary = 0;
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
  Config piece = llama;
  piece.name = "query piece";
  piece.Sq = 16;
  piece.qOffset = 24;
  all.push_back(piece);
  Config dropout = gpt2;
  dropout.name = "dropout";
  dropout.rate = 0.1;
  all.push_back(dropout);
  return all;
}

// The packed documents' lengths (documentPositions, Conformance.h).
const int64_t kDocumentLengths[4] = {11, 20, 5, 30};

struct Results {
  std::vector<float> out, dq, dk, dv;
};

/// The host values of q, k, v and dout, as stored in `t`.
struct Values {
  std::vector<float> q, k, v, dout;
  Values(const Config &c, int32_t t)
      : q(asStored(randomFloats(size_t(c.rows() * c.B * c.heads * c.D), 1), t)),
        k(asStored(randomFloats(size_t(c.S * c.B * c.kvHeads * c.D), 2), t)),
        v(asStored(randomFloats(size_t(c.S * c.B * c.kvHeads * c.D), 3), t)),
        dout(asStored(randomFloats(size_t(c.rows() * c.B * c.heads * c.D), 4),
                      t)) {}
};

/// The f32 kernels on the widened values, results rounded to `t`.
Results runF32(const Config &c, const Values &x, const int64_t *pos,
               int32_t t) {
  const size_t nq = x.q.size(), nkv = x.k.size();
  DeviceBuffer<float> q(x.q), k(x.k), v(x.v), dout(x.dout), out(nans(nq)),
      dq(nans(nq)), dk(nans(nkv)), dv(nans(nkv));
  sprt_attention_f32(q, k, v, pos, out, c.rows(), c.S, c.qOffset, c.B, c.heads,
                     c.kvHeads, c.D, c.causal, c.documents, c.rotary, 10000.0,
                     c.rate, 7, 3, c.B, 0, c.heads, 0);
  sprt_attention_grad_f32(dout, q, k, v, pos, dq, dk, dv, c.rows(), c.S,
                          c.qOffset, c.B, c.heads, c.kvHeads, c.D, c.causal,
                          c.documents, c.rotary, 10000.0, c.rate, 7, 3, c.B, 0,
                          c.heads, 0, 0);
  return {asStored(out.download(), t), asStored(dq.download(), t),
          asStored(dk.download(), t), asStored(dv.download(), t)};
}

/// The typed calls on the values stored in `t`.
Results runTyped(const Config &c, const Values &x, const int64_t *pos,
                 int32_t t) {
  const size_t nq = x.q.size(), nkv = x.k.size();
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
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

/// got within `rel` of want's largest magnitude, element by element.
void expectNear(const std::string &what, const std::vector<float> &got,
                const std::vector<float> &want, double rel) {
  double scale = 0.0;
  for (float w : want)
    scale = std::max(scale, double(std::fabs(w)));
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= rel * scale) && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", the f32 call gives " << want[i];
  EXPECT_EQ(bad, 0u) << what;
}

void check(const Config &c, int32_t t, bool cudnn) {
  const std::string what = c.name + " " + nameOf(t) + (cudnn ? " cudnn" : "");
  const Values x(c, t);
  DeviceBuffer<int64_t> positions(
      documentPositions(c.S, c.B, kDocumentLengths));
  const int64_t *pos = c.documents ? positions.get() : nullptr;
  const Results want = runF32(c, x, pos, t), got = runTyped(c, x, pos, t);
  expectBitwiseEqual(what + " out", got.out, want.out);
  if (cudnn) {
    expectNear(what + " dq", got.dq, want.dq, 1e-2);
    expectNear(what + " dk", got.dk, want.dk, 1e-2);
    expectNear(what + " dv", got.dv, want.dv, 1e-2);
    return;
  }
  expectBitwiseEqual(what + " dq", got.dq, want.dq);
  expectBitwiseEqual(what + " dk", got.dk, want.dk);
  expectBitwiseEqual(what + " dv", got.dv, want.dv);
}

TEST_F(AttentionTyped, IsTheF32KernelBetweenConversions) {
  sprt_attention_select(kF32, "native");
  for (const Config &c : configs())
    for (int32_t t : {kBf16, kF16})
      check(c, t, /*cudnn=*/false);
}

TEST_F(AttentionTyped, OnCudnnReadsAndWritesAsStored) {
  const NativeAttentionAfter restore;
  const std::string line = sprt_attention_select(kBf16, "cudnn");
  if (line.rfind("cudnn", 0) != 0)
    GTEST_SKIP() << "no cuDNN attention: " << line;
  // head_dim 64: a shape cuDNN runs.
  for (Config c : configs()) {
    c.D = 64;
    c.rotary = c.rotary ? 64 : 0;
    check(c, kBf16, /*cudnn=*/true);
  }
}

TEST_F(AttentionTyped, HeadReshapesMoveTwoByteElements) {
  const int64_t T = 5, heads = 6, kv = 2, D = 3, factor = heads / kv;
  const int64_t rowW = (heads + 2 * kv) * D;
  for (int32_t packing : {0, 1}) {
    // Distinct bf16 values: every element is where it belongs or not.
    std::vector<float> qkv(size_t(T * rowW));
    for (size_t i = 0; i < qkv.size(); ++i)
      qkv[i] = float(i + 1);
    TypedBuffer s(qkv, kBf16), q(nans(size_t(T * heads * D)), kBf16),
        k(nans(size_t(T * kv * D)), kBf16), v(nans(size_t(T * kv * D)), kBf16),
        back(nans(qkv.size()), kBf16);
    DeviceBuffer<float> f(qkv), fq(nans(size_t(T * heads * D))),
        fk(nans(size_t(T * kv * D))), fv(nans(size_t(T * kv * D)));
    sprt_qkv_split(s.get(), q.get(), k.get(), v.get(), T, heads, kv, D, packing,
                   2);
    sprt_qkv_split(f, fq, fk, fv, T, heads, kv, D, packing, 4);
    const std::string what = "packing " + std::to_string(packing);
    expectBitwiseEqual(what + " q", q.download(), fq.download());
    expectBitwiseEqual(what + " k", k.download(), fk.download());
    expectBitwiseEqual(what + " v", v.download(), fv.download());
    sprt_qkv_concat(q.get(), k.get(), v.get(), back.get(), T, heads, kv, D,
                    packing, 2);
    expectBitwiseEqual(what + " concat", back.download(), qkv);
  }
  std::vector<float> x(size_t(T * kv * D));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i + 1);
  TypedBuffer sx(x, kF16), sy(nans(size_t(T * heads * D)), kF16);
  DeviceBuffer<float> fx(x), fy(nans(size_t(T * heads * D)));
  sprt_repeat_heads(sx.get(), sy.get(), T, kv, D, factor, 2);
  sprt_repeat_heads(fx, fy, T, kv, D, factor, 4);
  expectBitwiseEqual("repeat_heads", sy.download(), fy.download());
}

} // namespace

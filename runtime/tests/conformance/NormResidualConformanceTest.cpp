//===- NormResidualConformanceTest.cpp - norm backward + residual ---------===//
//
// sprt_layer_norm_grad_add_typed and sprt_rms_norm_grad_add_typed (a norm's
// backward with the residual stream's gradient added into dx,
// tfm-fuse-elementwise) against the calls they replace on the same
// backend: the norm's backward (sprt_*_norm_grad_typed), then
// sprt_add_typed of the residual and dx. dx, dw and db must be those calls'
// bit for bit on every backend: the fused kernel rounds its input gradient
// to dx's type before adding the residual, as the add reads it, and keeps
// the backward's launch shape (a residual off the other operands'
// alignment is added apart). Cases: one dtype throughout (bf16, f16, f32)
// and weight gradients kept in f32 for bf16 rows; fused rows (vectors of 4,
// scalar rows) and a row too wide for the registers (the fallback); a
// residual one element off alignment; no rows; no weight gradients. The
// norm backward itself is checked against plain references in
// NormTypedConformanceTest and LinearNormConformanceTest.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::randomFloats;

namespace {

using NormResidual = DeviceTest;

/// `b` advanced by one element of `t` (a pointer off 4-element alignment).
void *offByOne(const TypedBuffer &b, int32_t t) {
  return static_cast<char *>(b.get()) + (t == kF32 ? 4 : 2);
}

std::vector<float> dropFirst(std::vector<float> v) {
  v.erase(v.begin());
  return v;
}

/// One case: `act` rows (dy, x, the weight, the residual, dx), weight
/// gradients of `grad` (or none), the residual aligned or one element off.
struct Case {
  int64_t T, H;
  int32_t act, grad;
  bool rms, withGrads = true, offset = false;
  std::string name() const {
    return std::string(rms ? "rms_norm" : "layer_norm") +
           " T=" + std::to_string(T) + " H=" + std::to_string(H) + " " +
           nameOf(act) + "/" + nameOf(grad) + (withGrads ? "" : " no dw") +
           (offset ? " residual unaligned" : "");
  }
};

void check(const Case &c) {
  const std::string what = c.name();
  const size_t n = size_t(c.T * c.H), h = size_t(c.H);
  std::vector<float> x = asStored(randomFloats(n, 3, -3.0f, 5.0f), c.act),
                     dy = asStored(randomFloats(n, 5, -1.0f, 1.0f), c.act),
                     w = asStored(randomFloats(h, 7, 0.5f, 1.5f), c.act),
                     r = asStored(randomFloats(n, 11, -0.2f, 0.2f), c.act);
  std::vector<float> rPadded = r;
  if (c.offset)
    rPadded.insert(rPadded.begin(), 0.0f);
  TypedBuffer sx(x, c.act), sdy(dy, c.act), sw(w, c.act), sr(rPadded, c.act),
      refDx(nans(n), c.act), refDw(nans(h), c.grad), refDb(nans(h), c.grad),
      dx(nans(n), c.act), dw(nans(h), c.grad), db(nans(h), c.grad);
  const void *residual = c.offset ? offByOne(sr, c.act) : sr.get();
  void *rdw = c.withGrads ? refDw.get() : nullptr,
       *fdw = c.withGrads ? dw.get() : nullptr;
  const int32_t gt = c.withGrads ? c.grad : 0;
  if (c.rms) {
    sprt_rms_norm_grad_typed(sdy.get(), c.act, sx.get(), c.act, sw.get(), c.act,
                             refDx.get(), c.act, rdw, gt, c.T, c.H, 1e-6);
    sprt_add_typed(residual, refDx.get(), refDx.get(), int64_t(n), c.act);
    sprt_rms_norm_grad_add_typed(sdy.get(), c.act, sx.get(), c.act, sw.get(),
                                 c.act, residual, c.act, dx.get(), c.act, fdw,
                                 gt, c.T, c.H, 1e-6);
  } else {
    void *rdb = c.withGrads ? refDb.get() : nullptr,
         *fdb = c.withGrads ? db.get() : nullptr;
    sprt_layer_norm_grad_typed(sdy.get(), c.act, sx.get(), c.act, sw.get(),
                               c.act, refDx.get(), c.act, rdw, gt, rdb, gt, c.T,
                               c.H, 1e-5);
    sprt_add_typed(residual, refDx.get(), refDx.get(), int64_t(n), c.act);
    sprt_layer_norm_grad_add_typed(sdy.get(), c.act, sx.get(), c.act, sw.get(),
                                   c.act, residual, c.act, dx.get(), c.act, fdw,
                                   gt, fdb, gt, c.T, c.H, 1e-5);
    if (c.withGrads)
      expectBitwiseEqual(what + " db", db.download(), refDb.download());
  }
  expectBitwiseEqual(what + " dx", dx.download(), refDx.download());
  if (c.withGrads)
    expectBitwiseEqual(what + " dw", dw.download(), refDw.download());
  // The residual is read, never written.
  std::vector<float> rAfter = sr.download();
  expectBitwiseEqual(what + " residual", c.offset ? dropFirst(rAfter) : rAfter,
                     r);
}

// Widths: fused rows of vectors of 4 (one and two chunks a thread), scalar
// rows, and a row too wide for the registers.
const int64_t kWidths[] = {64, 1032, 37, 6000};
const int32_t kActs[] = {kBf16, kF16, kF32};

TEST_F(NormResidual, IsTheBackwardThenTheAddBitForBit) {
  for (bool rms : {false, true}) {
    for (int64_t H : kWidths)
      for (int32_t t : kActs)
        check({H > 2048 ? 5 : 37, H, t, t, rms});
    // Weight gradients kept in f32 (a partial sum) for bf16 rows.
    check({37, 768, kBf16, kF32, rms});
    check({37, 768, kBf16, kBf16, rms, /*withGrads=*/false});
  }
}

TEST_F(NormResidual, AnUnalignedResidualIsAddedApartWithTheSameBits) {
  for (bool rms : {false, true})
    for (int32_t t : kActs)
      check({37, 64, t, t, rms, /*withGrads=*/true, /*offset=*/true});
}

TEST_F(NormResidual, NoRowsGiveZeroWeightGradients) {
  for (bool rms : {false, true}) {
    TypedBuffer dw(nans(64), kBf16), db(nans(64), kBf16);
    if (rms)
      sprt_rms_norm_grad_add_typed(nullptr, kBf16, nullptr, kBf16, nullptr,
                                   kBf16, nullptr, kBf16, nullptr, kBf16,
                                   dw.get(), kBf16, 0, 64, 1e-6);
    else
      sprt_layer_norm_grad_add_typed(
          nullptr, kBf16, nullptr, kBf16, nullptr, kBf16, nullptr, kBf16,
          nullptr, kBf16, dw.get(), kBf16, db.get(), kBf16, 0, 64, 1e-5);
    expectBitwiseEqual(rms ? "rms dw" : "layer dw", dw.download(),
                       std::vector<float>(64, 0.0f));
    if (!rms)
      expectBitwiseEqual("layer db", db.download(),
                         std::vector<float>(64, 0.0f));
  }
}

} // namespace

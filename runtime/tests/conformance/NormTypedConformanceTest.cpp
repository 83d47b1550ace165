//===- NormTypedConformanceTest.cpp - the norms on stored dtypes ----------===//
//
// sprt_layer_norm_typed, sprt_rms_norm_typed and their backward on bf16 /
// f16 / f32 tensors are the f32 kernels on the widened tensors, each result
// rounded once from the f32 kernel's value to its dtype: what
// sp-legalize-precision's conversions around the f32 kernel computed
// before the norms kept their storage type. The CPU backend runs the f32
// kernels' row arithmetic on widened rows, so it gives those bits exactly.
// The CUDA backend runs its fused kernels instantiated for the stored type,
// whose launch geometry (threads a row, blocks summing dw / db) may differ
// from the f32 instance's, so a row's reductions, and dw / db's sums, may
// be ordered differently: there each result is checked within one ulp of
// its dtype, dw / db within 1e-5 of the sum of magnitudes. Cases: every
// tensor of one dtype (the programs' case), a weight gradient kept in f32
// for bf16 activations (a partial sum), mixed operands, no bias, no dw.
// sprt_bias_grad_typed sums in the f32 kernel's order on both backends:
// bit for bit everywhere.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cmath>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::randomFloats;

namespace {

using NormTyped = DeviceTest;

/// got equals want bit for bit on the CPU backend and where t is f32 on
/// a row-local result; within one ulp of t (or `rel` of the column's
/// magnitude `scale`, for sums) elsewhere.
void expectStored(const std::string &what, const std::vector<float> &got,
                  const std::vector<float> &want, int32_t t,
                  const std::vector<double> *scale = nullptr) {
  if (onCpuBackend() || (t == kF32 && !scale)) {
    expectBitwiseEqual(what, got, want);
    return;
  }
  const double ulp = t == kF32 ? 0.0 : std::ldexp(1.0, t == kBf16 ? -7 : -10);
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double tol = ulp * std::fabs(double(want[i]));
    if (scale)
      tol += 1e-5 * (*scale)[i];
    bool ok = got[i] == want[i] || std::fabs(double(got[i]) - want[i]) <= tol;
    if (!ok && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", the converted f32 kernel gives " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

/// Dtypes of one call: activations (x, y / dy, dx), weight (and bias),
/// weight gradients.
struct Types {
  int32_t act, weight, grad;
  std::string name() const {
    return std::string(nameOf(act)) + "/" + nameOf(weight) + "/" + nameOf(grad);
  }
};

const Types kTypes[] = {{kBf16, kBf16, kBf16}, {kF16, kF16, kF16},
                        {kF32, kF32, kF32},    {kBf16, kBf16, kF32},
                        {kF16, kF32, kF32},    {kF32, kBf16, kBf16}};

/// Column magnitudes sum_t |dy| (|xhat| <= sqrt(H)) for the dw / db bound.
std::vector<double> columnScale(const std::vector<float> &dy, int64_t T,
                                int64_t H) {
  std::vector<double> s(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      s[size_t(h)] +=
          std::fabs(double(dy[size_t(t * H + h)])) * std::sqrt(double(H));
  return s;
}

void checkLayerNorm(int64_t T, int64_t H, const Types &ty, bool withBias,
                    bool withGrads) {
  const std::string what =
      "layer_norm T=" + std::to_string(T) + " H=" + std::to_string(H) + " " +
      ty.name() + (withBias ? "" : " no bias") + (withGrads ? "" : " no dw");
  const size_t n = size_t(T * H), h = size_t(H);
  std::vector<float> x = asStored(randomFloats(n, 3, -3.0f, 5.0f), ty.act),
                     dy = asStored(randomFloats(n, 5, -1.0f, 1.0f), ty.act),
                     w = asStored(randomFloats(h, 7, 0.5f, 1.5f), ty.weight),
                     b = asStored(randomFloats(h, 9, -0.5f, 0.5f), ty.weight);
  // The f32 kernels on the widened tensors.
  DeviceBuffer<float> fx(x), fdy(dy), fw(w), fb(b), fy(nans(n)), fdx(nans(n)),
      fdw(nans(h)), fdb(nans(h));
  sprt_layer_norm_f32(fx, fw, withBias ? fb.get() : nullptr, fy, T, H, 1e-5);
  sprt_layer_norm_grad_f32(fdy, fx, fw, fdx, withGrads ? fdw.get() : nullptr,
                           withGrads ? fdb.get() : nullptr, T, H, 1e-5);
  TypedBuffer sx(x, ty.act), sdy(dy, ty.act), sw(w, ty.weight),
      sb(b, ty.weight), sy(nans(n), ty.act), sdx(nans(n), ty.act),
      sdw(nans(h), ty.grad), sdb(nans(h), ty.grad);
  sprt_layer_norm_typed(sx.get(), ty.act, sw.get(), ty.weight,
                        withBias ? sb.get() : nullptr, withBias ? ty.weight : 0,
                        sy.get(), ty.act, T, H, 1e-5);
  sprt_layer_norm_grad_typed(
      sdy.get(), ty.act, sx.get(), ty.act, sw.get(), ty.weight, sdx.get(),
      ty.act, withGrads ? sdw.get() : nullptr, withGrads ? ty.grad : 0,
      withGrads ? sdb.get() : nullptr, withGrads ? ty.grad : 0, T, H, 1e-5);
  expectStored(what + " y", sy.download(), asStored(fy.download(), ty.act),
               ty.act);
  expectStored(what + " dx", sdx.download(), asStored(fdx.download(), ty.act),
               ty.act);
  if (!withGrads)
    return;
  std::vector<double> scale = columnScale(dy, T, H);
  expectStored(what + " dw", sdw.download(), asStored(fdw.download(), ty.grad),
               ty.grad, &scale);
  expectStored(what + " db", sdb.download(), asStored(fdb.download(), ty.grad),
               ty.grad, &scale);
}

void checkRmsNorm(int64_t T, int64_t H, const Types &ty, bool withGrads) {
  const std::string what = "rms_norm T=" + std::to_string(T) +
                           " H=" + std::to_string(H) + " " + ty.name() +
                           (withGrads ? "" : " no dw");
  const size_t n = size_t(T * H), h = size_t(H);
  std::vector<float> x = asStored(randomFloats(n, 13, -2.0f, 2.0f), ty.act),
                     dy = asStored(randomFloats(n, 17, -1.0f, 1.0f), ty.act),
                     w = asStored(randomFloats(h, 19, 0.5f, 1.5f), ty.weight);
  DeviceBuffer<float> fx(x), fdy(dy), fw(w), fy(nans(n)), fdx(nans(n)),
      fdw(nans(h));
  sprt_rms_norm_f32(fx, fw, fy, T, H, 1e-6);
  sprt_rms_norm_grad_f32(fdy, fx, fw, fdx, withGrads ? fdw.get() : nullptr, T,
                         H, 1e-6);
  TypedBuffer sx(x, ty.act), sdy(dy, ty.act), sw(w, ty.weight),
      sy(nans(n), ty.act), sdx(nans(n), ty.act), sdw(nans(h), ty.grad);
  sprt_rms_norm_typed(sx.get(), ty.act, sw.get(), ty.weight, sy.get(), ty.act,
                      T, H, 1e-6);
  sprt_rms_norm_grad_typed(sdy.get(), ty.act, sx.get(), ty.act, sw.get(),
                           ty.weight, sdx.get(), ty.act,
                           withGrads ? sdw.get() : nullptr,
                           withGrads ? ty.grad : 0, T, H, 1e-6);
  expectStored(what + " y", sy.download(), asStored(fy.download(), ty.act),
               ty.act);
  expectStored(what + " dx", sdx.download(), asStored(fdx.download(), ty.act),
               ty.act);
  if (!withGrads)
    return;
  std::vector<double> scale = columnScale(dy, T, H);
  expectStored(what + " dw", sdw.download(), asStored(fdw.download(), ty.grad),
               ty.grad, &scale);
}

// Widths: the fused rows (vectors of 4, one and two chunks), scalar rows,
// and a row too wide for the registers (the fallback paths).
const int64_t kWidths[] = {64, 768, 1032, 37, 6000};

TEST_F(NormTyped, LayerNormIsTheF32KernelBetweenConversions) {
  for (int64_t H : kWidths)
    for (const Types &ty : kTypes)
      checkLayerNorm(H > 2048 ? 5 : 37, H, ty, /*withBias=*/true,
                     /*withGrads=*/true);
  checkLayerNorm(37, 768, kTypes[0], /*withBias=*/false, /*withGrads=*/true);
  checkLayerNorm(37, 768, kTypes[0], /*withBias=*/true, /*withGrads=*/false);
}

TEST_F(NormTyped, RmsNormIsTheF32KernelBetweenConversions) {
  for (int64_t H : kWidths)
    for (const Types &ty : kTypes)
      checkRmsNorm(H > 2048 ? 5 : 37, H, ty, /*withGrads=*/true);
  checkRmsNorm(37, 768, kTypes[0], /*withGrads=*/false);
}

// The bias gradient's column sums: the f32 kernel's, in the same order on
// the widened rows, on both backends: bit for bit.
TEST_F(NormTyped, BiasGradIsTheF32KernelBetweenConversions) {
  const int32_t pairs[][2] = {{kBf16, kBf16}, {kBf16, kF32}, {kF16, kF16},
                              {kF16, kF32},   {kF32, kBf16}, {kF32, kF32}};
  for (int64_t T : {int64_t(1), int64_t(37), int64_t(5000)})
    for (int64_t H : {int64_t(64), int64_t(37)})
      for (const auto &p : pairs) {
        const std::string what = "bias_grad T=" + std::to_string(T) +
                                 " H=" + std::to_string(H) + " " +
                                 nameOf(p[0]) + "->" + nameOf(p[1]);
        const size_t n = size_t(T * H), h = size_t(H);
        std::vector<float> dy =
            asStored(randomFloats(n, 23, -1.0f, 1.0f), p[0]);
        DeviceBuffer<float> fdy(dy), fdb(nans(h));
        sprt_bias_grad_f32(fdy, fdb, T, H);
        TypedBuffer sdy(dy, p[0]), sdb(nans(h), p[1]);
        sprt_bias_grad_typed(sdy.get(), p[0], sdb.get(), p[1], T, H);
        expectBitwiseEqual(what, sdb.download(),
                           asStored(fdb.download(), p[1]));
      }
}

TEST_F(NormTyped, NoRowsGiveZeroWeightGradients) {
  const Types ty = kTypes[0];
  TypedBuffer dw(nans(8), ty.grad), db(nans(8), ty.grad);
  TypedBuffer w(std::vector<float>(8, 1.0f), ty.weight);
  sprt_layer_norm_grad_typed(nullptr, ty.act, nullptr, ty.act, w.get(),
                             ty.weight, nullptr, ty.act, dw.get(), ty.grad,
                             db.get(), ty.grad, 0, 8, 1e-5);
  expectBitwiseEqual("dw", dw.download(), std::vector<float>(8, 0.0f));
  expectBitwiseEqual("db", db.download(), std::vector<float>(8, 0.0f));
  TypedBuffer bias(nans(8), ty.grad);
  sprt_bias_grad_typed(nullptr, ty.act, bias.get(), ty.grad, 0, 8);
  expectBitwiseEqual("bias_grad", bias.download(), std::vector<float>(8, 0.0f));
}

} // namespace

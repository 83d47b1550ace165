//===- ElementwiseTypedConformanceTest.cpp - maps on stored dtypes --------===//
//
// sprt_gelu_typed, sprt_silu_typed, sprt_relu_typed, sprt_mul_typed,
// sprt_add_typed, sprt_dropout_typed and the activations' gradients
// (sprt_gelu_grad_typed, ...) on bf16 / f16 tensors are the f32
// kernels on the widened tensors (dropout: with the same mask), rounded
// once to the dtype (nearest even, sprt/dtype.h): what
// sp-legalize-precision's conversions around the f32 kernel compute. The
// CPU backend runs the f32 kernel on widened blocks, so its results are
// those bits exactly. The CUDA backend evaluates the same formula per
// element in another kernel, where nvcc may contract a multiply-add
// differently (DeviceMath.cuh): its results must be within one ulp of the
// dtype of the converted f32 kernel's (NaN where it is NaN). With dtype
// F32 every backend must give the f32 kernel's bits. The inputs span more
// than one CPU block (2048 elements), an odd tail, zeros, infinities, NaN
// and values that overflow f16 in the maps.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cmath>
#include <functional>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::randomFloats;

namespace {

using ElementwiseTyped = DeviceTest;

constexpr size_t kN = 5115; // 3 x 5 x 341 (dropout's shard)

/// Random values in [-6, 6) with special values sprinkled in, as stored in
/// `t` (rounded, then widened).
std::vector<float> inputs(uint32_t seed, int32_t t) {
  std::vector<float> v = randomFloats(kN, seed, -6.0f, 6.0f);
  const float specials[] = {0.0f,  -0.0f, INFINITY, -INFINITY, NAN,    1e4f,
                            -1e4f, 3e38f, -3e38f,   1e-30f,    250.0f, -250.0f};
  for (size_t i = 0; i < sizeof(specials) / sizeof(float); ++i)
    v[i * 401] = specials[i];
  return asStored(v, t);
}

/// The f32 kernel and the typed one of a map of one or two operands.
struct Map {
  std::string name;
  std::function<void(const float *, const float *, float *, int64_t)> f32;
  std::function<void(const void *, const void *, void *, int64_t, int32_t)>
      typed;
};

std::vector<Map> maps() {
  return {
      {"gelu",
       [](auto x, auto, auto y, int64_t n) { sprt_gelu_f32(x, y, n, 0); },
       [](auto x, auto, auto y, int64_t n, int32_t t) {
         sprt_gelu_typed(x, y, n, 0, t);
       }},
      {"gelu_tanh",
       [](auto x, auto, auto y, int64_t n) { sprt_gelu_f32(x, y, n, 1); },
       [](auto x, auto, auto y, int64_t n, int32_t t) {
         sprt_gelu_typed(x, y, n, 1, t);
       }},
      {"silu", [](auto x, auto, auto y, int64_t n) { sprt_silu_f32(x, y, n); },
       [](auto x, auto, auto y, int64_t n, int32_t t) {
         sprt_silu_typed(x, y, n, t);
       }},
      {"relu", [](auto x, auto, auto y, int64_t n) { sprt_relu_f32(x, y, n); },
       [](auto x, auto, auto y, int64_t n, int32_t t) {
         sprt_relu_typed(x, y, n, t);
       }},
      {"mul", sprt_mul_f32, sprt_mul_typed},
      {"add", sprt_add_f32, sprt_add_typed},
      // The activations' gradients: (dy, x) -> dx.
      {"gelu_grad",
       [](auto d, auto x, auto y, int64_t n) {
         sprt_gelu_grad_f32(d, x, y, n, 0);
       },
       [](auto d, auto x, auto y, int64_t n, int32_t t) {
         sprt_gelu_grad_typed(d, x, y, n, 0, t);
       }},
      {"gelu_grad_tanh",
       [](auto d, auto x, auto y, int64_t n) {
         sprt_gelu_grad_f32(d, x, y, n, 1);
       },
       [](auto d, auto x, auto y, int64_t n, int32_t t) {
         sprt_gelu_grad_typed(d, x, y, n, 1, t);
       }},
      {"silu_grad", sprt_silu_grad_f32, sprt_silu_grad_typed},
      {"relu_grad", sprt_relu_grad_f32, sprt_relu_grad_typed},
  };
}

/// got equals want (both widened from `t`) bit for bit on the CPU backend
/// and for f32; within one ulp of `t` elsewhere, NaN where want is NaN.
void expectConverted(const std::string &what, const std::vector<float> &got,
                     const std::vector<float> &want, int32_t t) {
  if (t == kF32 || onCpuBackend()) {
    expectBitwiseEqual(what, got, want);
    return;
  }
  const double ulp = std::ldexp(1.0, t == kBf16 ? -7 : -10);
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bool ok = std::isnan(want[i])
                  ? std::isnan(got[i])
                  : got[i] == want[i] || std::fabs(double(got[i]) - want[i]) <=
                                             ulp * std::fabs(double(want[i]));
    if (!ok && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", the converted f32 kernel gives " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

TEST_F(ElementwiseTyped, MapsAreTheF32KernelsOnWidenedTensorsRoundedOnce) {
  for (const Map &m : maps())
    for (int32_t t : {kBf16, kF16, kF32}) {
      std::string what = m.name + " " + nameOf(t);
      std::vector<float> a = inputs(7, t), b = inputs(11, t);
      // The f32 kernel on the widened tensors, rounded to t on the host.
      DeviceBuffer<float> wa(a), wb(b), wy(nans(kN));
      m.f32(wa, wb, wy, int64_t(kN));
      std::vector<float> want = wy.download();
      want = asStored(want, t);
      TypedBuffer sa(a, t), sb(b, t), sy(nans(kN), t);
      m.typed(sa.get(), sb.get(), sy.get(), int64_t(kN), t);
      expectConverted(what, sy.download(), want, t);
      // In place: the result overwrites the first operand.
      m.typed(sa.get(), sb.get(), sa.get(), int64_t(kN), t);
      expectConverted(what + " in place", sa.download(), want, t);
    }
}

TEST_F(ElementwiseTyped, DropoutIsTheF32KernelOnWidenedTensorsRoundedOnce) {
  // A [3, 5, 341] shard at [2, 5, 0] of a [8, 10, 341] tensor: kN elements.
  const int64_t shape[3] = {3, 5, 341}, global[3] = {8, 10, 341},
                offset[3] = {2, 5, 0};
  for (double rate : {0.0, 0.3, 1.0})
    for (int32_t t : {kBf16, kF16, kF32}) {
      std::string what = "dropout " + std::to_string(rate) + " " + nameOf(t);
      std::vector<float> x = inputs(13, t);
      DeviceBuffer<float> wx(x), wy(nans(kN));
      DeviceBuffer<uint8_t> wantMask(std::vector<uint8_t>(kN, 7)),
          gotMask(std::vector<uint8_t>(kN, 9));
      sprt_dropout_f32(wx, wy, wantMask, 3, shape, global, offset, rate, 1234,
                       5);
      std::vector<float> want = wy.download();
      want = asStored(want, t);
      TypedBuffer sx(x, t), sy(nans(kN), t);
      sprt_dropout_typed(sx.get(), sy.get(), gotMask, 3, shape, global, offset,
                         rate, 1234, 5, t);
      expectConverted(what, sy.download(), want, t);
      EXPECT_EQ(gotMask.download(), wantMask.download()) << what;
      // In place, without a mask.
      sprt_dropout_typed(sx.get(), sx.get(), nullptr, 3, shape, global, offset,
                         rate, 1234, 5, t);
      expectConverted(what + " in place", sx.download(), want, t);
    }
}

TEST_F(ElementwiseTyped, EmptyTensorsWriteNothing) {
  for (const Map &m : maps()) {
    TypedBuffer a({1.5f}, kBf16), y({-2.0f}, kBf16);
    m.typed(a.get(), a.get(), y.get(), 0, kBf16);
    EXPECT_EQ(y.download(), std::vector<float>{-2.0f}) << m.name;
  }
}
} // namespace

//===- LossTypedConformanceTest.cpp - the cross-entropy on stored dtypes --===//
//
// sprt_cross_entropy_typed and sprt_cross_entropy_grad_typed on bf16 / f16
// / f32 logits are the f32 kernels on the widened logits, the gradient
// rounded once from the f32 kernel's value to its dtype: what
// sp-legalize-precision's conversions around the f32 kernels computed
// before the loss kept its storage type. The CPU backend widens one row at
// a time into the f32 kernels' arithmetic, so it gives those bits exactly;
// the CUDA backend's kernels are instantiated for the stored type with the
// f32 instance's launch geometry, checked within one ulp of the dtype (the
// loss within 1e-6 relative). Cases: every token counted, some ignored,
// the global count given, mixed logits / gradient types.
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

using LossTyped = DeviceTest;

void expectClose(const std::string &what, const std::vector<float> &got,
                 const std::vector<float> &want, double rel) {
  if (onCpuBackend() || rel == 0.0) {
    expectBitwiseEqual(what, got, want);
    return;
  }
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bool ok = got[i] == want[i] ||
              std::fabs(double(got[i]) - want[i]) <= rel * std::fabs(want[i]);
    if (!ok && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", the converted f32 kernel gives " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

double ulpOf(int32_t t) {
  return t == kF32 ? 0.0 : std::ldexp(1.0, t == kBf16 ? -7 : -10);
}

void check(int64_t T, int64_t V, int32_t in, int32_t out, bool ignoreSome,
           bool withCount) {
  const std::string what = "cross_entropy T=" + std::to_string(T) +
                           " V=" + std::to_string(V) + " " + nameOf(in) + "->" +
                           nameOf(out) + (ignoreSome ? " ignoring some" : "") +
                           (withCount ? " count given" : "");
  const size_t n = size_t(T * V);
  std::vector<float> logits = asStored(randomFloats(n, 23, -8.0f, 8.0f), in);
  std::vector<int64_t> labels =
      randomLabels(size_t(T), 0, V, 29, -100, ignoreSome ? 3 : 0);
  DeviceBuffer<int64_t> dl(labels);
  DeviceBuffer<float> count(std::vector<float>{float(T + 5)}),
      dloss(std::vector<float>{0.75f});
  const float *countIn = withCount ? count.get() : nullptr;
  // The f32 kernels on the widened logits.
  DeviceBuffer<float> fl(logits), floss(nans(1)), fd(nans(n));
  sprt_cross_entropy_f32(fl, dl, countIn, floss, T, V, -100);
  sprt_cross_entropy_grad_f32(fl, dl, dloss, countIn, fd, T, V, -100);
  TypedBuffer sl(logits, in), sd(nans(n), out);
  DeviceBuffer<float> sloss(nans(1));
  sprt_cross_entropy_typed(sl.get(), in, dl, countIn, sloss, T, V, -100);
  sprt_cross_entropy_grad_typed(sl.get(), in, dl, dloss, countIn, sd.get(), out,
                                T, V, -100);
  expectClose(what + " loss", sloss.download(), floss.download(), 1e-6);
  expectClose(what + " dlogits", sd.download(), asStored(fd.download(), out),
              ulpOf(out));
}

TEST_F(LossTyped, CrossEntropyIsTheF32KernelOnWidenedLogits) {
  for (int32_t t : {kBf16, kF16, kF32})
    for (int64_t V : {50, 1001}) {
      check(37, V, t, t, false, false);
      check(37, V, t, t, true, false);
      check(37, V, t, t, true, true);
    }
  check(37, 1001, kBf16, kF32, true, false);
  check(37, 1001, kF32, kBf16, false, true);
}

TEST_F(LossTyped, EveryLabelIgnoredGivesZeros) {
  std::vector<int64_t> labels(4, -100);
  DeviceBuffer<int64_t> dl(labels);
  DeviceBuffer<float> dloss(std::vector<float>{1.0f}), loss(nans(1));
  TypedBuffer logits(std::vector<float>(4 * 8, 1.0f), kBf16),
      d(nans(4 * 8), kBf16);
  sprt_cross_entropy_typed(logits.get(), kBf16, dl, nullptr, loss, 4, 8, -100);
  sprt_cross_entropy_grad_typed(logits.get(), kBf16, dl, dloss, nullptr,
                                d.get(), kBf16, 4, 8, -100);
  expectBitwiseEqual("loss", loss.download(), std::vector<float>{0.0f});
  expectBitwiseEqual("dlogits", d.download(), std::vector<float>(32, 0.0f));
}

} // namespace

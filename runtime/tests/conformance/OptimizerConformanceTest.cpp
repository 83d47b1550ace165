//===- OptimizerConformanceTest.cpp - AdamW, SGD, gradient norm -----------===//
//
// The device-scalar optimizer ABI (sprt/grad_kernels.h):
// the clip scale is read from device memory, g = grad * scale is a float
// multiply, and a NaN scale (non-finite norm) leaves param, m and v
// untouched. References in double from the stored float state; bound: one
// float rounding per stored value (2 ulp: 2.4e-7 relative) plus the
// reference's own double arithmetic. The master-weight kernels: the master,
// m and v bit for bit those of the f32 kernels on the same backend (a run
// with sharded master weights is the replicated-master run), the bf16 / f16
// parameter bit for bit sprt/dtype.h's rounding of the master (the
// conversion ConvertConformanceTest.cpp checks), nothing changed on a NaN
// scale.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <memory>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using Optimizer = DeviceTest;

TEST_F(Optimizer, SumSquaresAndClipScale) {
  const int64_t n = 300001; // many blocks and a ragged tail
  auto x = randomFloats(size_t(n), 91);
  double ref = 0.0;
  for (float v : x)
    ref += double(v) * double(v);
  DeviceBuffer<float> dX(x), dSum(nans(1)), dScale(nans(1)), dNorm(nans(1));
  sprt_sum_squares_f32(dX, n, dSum);
  expectClose("sum_squares", dSum.download(), {ref}, 1e-7, 0.0);

  // max_norm below the norm clips, above it keeps 1, 0 disables clipping.
  // The clip factor from the sum the kernel produced (its last bit depends on
  // the backend's summation order).
  const double norm = std::sqrt(double(dSum.download()[0]));
  for (double maxNorm : {norm / 3.0, norm * 2.0, 0.0}) {
    sprt_clip_scale_f32(dSum, maxNorm, 1.0, dScale, dNorm);
    const double scale =
        maxNorm > 0 ? std::min(1.0, maxNorm / (norm + 1e-6)) : 1.0;
    EXPECT_EQ(dNorm.download()[0], float(norm));
    EXPECT_EQ(dScale.download()[0], float(scale)) << "max_norm " << maxNorm;
  }
  // A non-finite sum gives a NaN scale.
  for (float bad : {INFINITY, NAN}) {
    DeviceBuffer<float> dBad(std::vector<float>{bad});
    sprt_clip_scale_f32(dBad, 1.0, 1.0, dScale, dNorm);
    EXPECT_TRUE(std::isnan(dScale.download()[0])) << bad;
  }
  // With a loss scale: the norm of gradients of the loss times S is divided
  // by S, and so is the factor.
  for (double lossScale : {1024.0, 3.0}) {
    for (double maxNorm : {norm / lossScale / 3.0, 0.0}) {
      sprt_clip_scale_f32(dSum, maxNorm, lossScale, dScale, dNorm);
      const double trueNorm = norm / lossScale;
      const double clip =
          maxNorm > 0 ? std::min(1.0, maxNorm / (trueNorm + 1e-6)) : 1.0;
      EXPECT_EQ(dNorm.download()[0], float(trueNorm)) << lossScale;
      EXPECT_EQ(dScale.download()[0], float(clip / lossScale))
          << lossScale << " " << maxNorm;
    }
    DeviceBuffer<float> dInf(std::vector<float>{INFINITY});
    sprt_clip_scale_f32(dInf, 1.0, lossScale, dScale, dNorm);
    EXPECT_TRUE(std::isnan(dScale.download()[0])) << lossScale;
    EXPECT_TRUE(std::isinf(dNorm.download()[0])) << lossScale;
  }
  DeviceBuffer<float> dEmpty(1);
  sprt_sum_squares_f32(dEmpty, 0, dSum);
  EXPECT_EQ(dSum.download()[0], 0.0f);
}

// The multi-tensor sum (one per layout group of a step's gradients): each
// tensor's sum as the one-tensor kernel on this backend rounds it, added in
// f32 in list order, bit for bit; 300 tensors cross the GPU's 128-tensor
// launches, with empty and one-element tensors among them.
TEST_F(Optimizer, SumSquaresListIsTheChainOfOneTensorSums) {
  std::vector<std::unique_ptr<DeviceBuffer<float>>> xs;
  std::vector<const float *> ptrs;
  std::vector<int64_t> sizes;
  for (int t = 0; t < 300; ++t) {
    const int64_t n = t % 7 == 0 ? 0 : t % 5 == 0 ? 1 : 37 * t + (t % 3) * 4099;
    xs.push_back(std::make_unique<DeviceBuffer<float>>(
        n ? randomFloats(size_t(n), 500 + t) : nans(1)));
    sizes.push_back(n);
  }
  for (auto &x : xs)
    ptrs.push_back(*x);
  DeviceBuffer<float> dSum(nans(1));
  std::vector<float> each;
  for (int t = 0; t < 300; ++t) {
    sprt_sum_squares_f32(ptrs[t], sizes[t], dSum);
    each.push_back(dSum.download()[0]);
  }
  for (int32_t count : {1, 2, 128, 129, 300}) {
    float want = 0.0f;
    for (int32_t t = 0; t < count; ++t)
      want = t == 0 ? each[t] : want + each[t];
    sprt_sum_squares_list_f32(count, ptrs.data(), sizes.data(), dSum);
    expectBitwiseEqual("sum_squares list", dSum.download(), {want});
  }
}

// The loss scale read from device memory when the kernel runs (a step's
// hyperparameter: what a step captured as a CUDA graph replays with): the
// bits of the by-value kernels, and a new value there is the one used.
TEST_F(Optimizer, ScaleByAndClipScaleByReadTheScaleOnTheDevice) {
  const int64_t n = 70001;
  const auto x = randomFloats(size_t(n), 93);
  DeviceBuffer<float> dX(x), dSum(nans(1));
  sprt_sum_squares_f32(dX, n, dSum);
  const double norm = std::sqrt(double(dSum.download()[0]));
  DeviceBuffer<double> dLossScale(std::vector<double>{1.0});
  for (double lossScale : {65536.0, 3.0, 0.5}) {
    dLossScale.upload({lossScale});
    DeviceBuffer<float> byValue(x), byDevice(x);
    sprt_scale_f32(byValue, n, lossScale);
    sprt_scale_by_f32(byDevice, n, dLossScale);
    expectBitwiseEqual("scale_by", byDevice.download(), byValue.download());
    for (double maxNorm : {norm / lossScale / 3.0, 0.0}) {
      DeviceBuffer<float> s0(nans(1)), n0(nans(1)), s1(nans(1)), n1(nans(1));
      sprt_clip_scale_f32(dSum, maxNorm, lossScale, s0, n0);
      sprt_clip_scale_by_f32(dSum, maxNorm, dLossScale, s1, n1);
      expectBitwiseEqual("clip_scale_by scale", s1.download(), s0.download());
      expectBitwiseEqual("clip_scale_by norm", n1.download(), n0.download());
    }
  }
}

TEST_F(Optimizer, PowerOfTwoLossScaleGivesTheUnscaledUpdate) {
  // Gradients of the loss times 2^10 (exactly 2^10 times the gradients):
  // sum of squares, clip factor and SGD give the unscaled update's bits.
  const int64_t n = 4099;
  auto p = randomFloats(size_t(n), 81), g = randomFloats(size_t(n), 82);
  std::vector<float> scaled(g);
  for (float &x : scaled)
    x *= 1024.0f;
  std::vector<std::vector<float>> results;
  for (auto [grad, lossScale] :
       {std::pair<const std::vector<float> *, double>{&g, 1.0},
        {&scaled, 1024.0}}) {
    DeviceBuffer<float> dP(p), dG(*grad), dSum(nans(1)), dScale(nans(1)),
        dNorm(nans(1));
    sprt_sum_squares_f32(dG, n, dSum);
    sprt_clip_scale_f32(dSum, 0.5, lossScale, dScale, dNorm);
    sprt_sgd_f32(dP, dG, dScale, n, deviceLr(0.1), 0.01);
    results.push_back(dP.download());
    results.push_back(dNorm.download());
  }
  expectBitwiseEqual("loss-scaled sgd", results[2], results[0]);
  expectBitwiseEqual("loss-scaled norm", results[3], results[1]);
}

TEST_F(Optimizer, SgdWithScaleAndNanSkip) {
  const int64_t n = 1000;
  auto p = randomFloats(size_t(n), 92), g = randomFloats(size_t(n), 93);
  const double lr = 0.05, wd = 0.01;
  const float scale = 0.37f;
  std::vector<double> ref(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double gi = double(g[i] * scale); // the float multiply
    ref[i] = p[i] - lr * (gi + wd * p[i]);
  }
  DeviceBuffer<float> dP(p), dG(g), dScale(std::vector<float>{scale}),
      dNan(std::vector<float>{NAN});
  sprt_sgd_f32(dP, dG, dNan, n, deviceLr(lr), wd);
  expectBitwiseEqual("sgd skipped on NaN scale", dP.download(), p);
  sprt_sgd_f32(dP, dG, dScale, n, deviceLr(lr), wd);
  expectClose("sgd", dP.download(), ref, 1.2e-7, 1e-9);
}

TEST_F(Optimizer, AdamwThreeStepsWithScaleAndNanSkip) {
  const int64_t n = 777;
  auto p = randomFloats(size_t(n), 94);
  std::vector<float> m(size_t(n), 0.0f), v(size_t(n), 0.0f);
  const double lr = 1e-3, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1;
  DeviceBuffer<float> dP(p), dM(m), dV(v), dNan(std::vector<float>{NAN});
  for (int64_t step = 1; step <= 3; ++step) {
    auto g = randomFloats(size_t(n), 95 + uint32_t(step), -2.0f, 2.0f);
    const float scale = step == 2 ? 1.0f : 0.5f;
    DeviceBuffer<float> dG(g), dScale(std::vector<float>{scale});
    // A skipped step in between changes nothing.
    sprt_adamw_f32(dP, dG, dM, dV, dNan, n, deviceLr(lr), b1, b2, eps, wd,
                   deviceStep(step));
    expectBitwiseEqual("adamw skip p", dP.download(), p);
    expectBitwiseEqual("adamw skip m", dM.download(), m);
    expectBitwiseEqual("adamw skip v", dV.download(), v);

    std::vector<double> refP(static_cast<size_t>(n)),
        refM(static_cast<size_t>(n)), refV(static_cast<size_t>(n));
    const double bc1 = 1.0 - std::pow(b1, double(step)),
                 bc2 = 1.0 - std::pow(b2, double(step));
    for (int64_t i = 0; i < n; ++i) {
      const double gi = double(g[i] * scale);
      refM[i] = b1 * m[i] + (1 - b1) * gi;
      refV[i] = b2 * v[i] + (1 - b2) * gi * gi;
      // The update reads the moments as stored (rounded to float).
      const double mi = float(refM[i]), vi = float(refV[i]);
      refP[i] = p[i] * (1 - lr * wd) -
                lr / bc1 * mi / (std::sqrt(vi) / std::sqrt(bc2) + eps);
    }
    sprt_adamw_f32(dP, dG, dM, dV, dScale, n, deviceLr(lr), b1, b2, eps, wd,
                   deviceStep(step));
    p = dP.download();
    m = dM.download();
    v = dV.download();
    const std::string what = "adamw step " + std::to_string(step);
    expectClose(what + " m", m, refM, 1.2e-7, 1e-12);
    expectClose(what + " v", v, refV, 1.2e-7, 1e-12);
    expectClose(what + " p", p, refP, 1.2e-7, 1e-9);
  }
}

TEST_F(Optimizer, MasterUpdatesRoundTheMasterIntoTheParameter) {
  const int64_t n = 4099; // several blocks and a ragged tail
  const double lr = 1e-2, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1;
  for (int32_t dtype : {int32_t(SPRT_DTYPE_BF16), int32_t(SPRT_DTYPE_F16)}) {
    auto p = randomFloats(size_t(n), 120, -2.0f, 2.0f);
    std::vector<float> zeros(size_t(n), 0.0f);
    // The same state through the f32 kernels and the master kernels.
    DeviceBuffer<float> dP(p), dM(zeros), dV(zeros), dMaster(p), dM2(zeros),
        dV2(zeros), dNan(std::vector<float>{NAN});
    DeviceBuffer<uint16_t> dParam(std::vector<uint16_t>(size_t(n), 0xffff));
    auto rounded = [&](const std::vector<float> &master) {
      std::vector<uint16_t> r(master.size());
      for (size_t i = 0; i < master.size(); ++i)
        r[i] = dtype == SPRT_DTYPE_BF16 ? sprt::dtype::f32ToBf16(master[i])
                                        : sprt::dtype::f32ToF16(master[i]);
      return r;
    };
    for (int64_t step = 1; step <= 3; ++step) {
      auto g = randomFloats(size_t(n), 121 + uint32_t(step), -2.0f, 2.0f);
      const float scale = step == 2 ? 1.0f : 0.5f;
      DeviceBuffer<float> dG(g), dScale(std::vector<float>{scale});
      auto before = dParam.download();
      auto masterBefore = dMaster.download();
      sprt_adamw_master_f32(dMaster, dParam, dtype, dG, dM2, dV2, dNan, n,
                            deviceLr(lr), b1, b2, eps, wd, deviceStep(step));
      EXPECT_EQ(dParam.download(), before) << "NaN scale, step " << step;
      expectBitwiseEqual("adamw master skip", dMaster.download(), masterBefore);
      sprt_adamw_f32(dP, dG, dM, dV, dScale, n, deviceLr(lr), b1, b2, eps, wd,
                     deviceStep(step));
      sprt_adamw_master_f32(dMaster, dParam, dtype, dG, dM2, dV2, dScale, n,
                            deviceLr(lr), b1, b2, eps, wd, deviceStep(step));
      const std::string what = "adamw master dtype " + std::to_string(dtype) +
                               " step " + std::to_string(step);
      auto master = dMaster.download();
      expectBitwiseEqual(what + " master", master, dP.download());
      expectBitwiseEqual(what + " m", dM2.download(), dM.download());
      expectBitwiseEqual(what + " v", dV2.download(), dV.download());
      EXPECT_EQ(dParam.download(), rounded(master)) << what;
    }
    // SGD, with a clip factor and weight decay.
    DeviceBuffer<float> dScale(std::vector<float>{0.37f});
    auto g = randomFloats(size_t(n), 130);
    DeviceBuffer<float> dG(g);
    sprt_sgd_f32(dP, dG, dScale, n, deviceLr(0.05), 0.01);
    sprt_sgd_master_f32(dMaster, dParam, dtype, dG, dScale, n, deviceLr(0.05),
                        0.01);
    auto master = dMaster.download();
    expectBitwiseEqual("sgd master", master, dP.download());
    EXPECT_EQ(dParam.download(), rounded(master)) << "sgd dtype " << dtype;
    auto before = dParam.download();
    sprt_sgd_master_f32(dMaster, dParam, dtype, dG, dNan, n, deviceLr(0.05),
                        0.01);
    EXPECT_EQ(dParam.download(), before) << "sgd NaN scale";
    expectBitwiseEqual("sgd master skip", dMaster.download(), master);
  }
}

} // namespace

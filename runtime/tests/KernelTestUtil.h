//===- KernelTestUtil.h - helpers for the libsprt kernel tests --*- C++ -*-===//
//
// Random inputs from a fixed std::mt19937 (independent of sprt's Philox), and
// an element-wise closeness check that also prints the largest errors seen,
// so the tolerances in the tests can be compared with what is measured.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_TESTS_KERNELTESTUTIL_H
#define SPRT_TESTS_KERNELTESTUTIL_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace sprt_test {

inline std::vector<float> randomFloats(size_t n, uint32_t seed,
                                       float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

inline std::vector<float> randomNormals(size_t n, uint32_t seed,
                                        float stddev = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, stddev);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

// Checks |got[i] - ref[i]| <= atol + rtol * scale[i] for every i, where
// scale[i] is |ref[i]| unless a condition-aware scale is given (e.g.
// sum_k |x_k w_k| for a dot product). Prints the largest absolute error, the
// largest relative error |got - ref| / |ref| over elements with
// |ref| >= 1e-3 (smaller references make relative errors meaningless), and the
// largest ratio error / tolerance.
inline void expectClose(const std::string &what, const float *got,
                        const double *ref, size_t n, double rtol, double atol,
                        const double *scale = nullptr) {
  double maxAbs = 0.0, maxRel = 0.0, maxRatio = 0.0;
  size_t bad = 0, firstBad = n;
  for (size_t i = 0; i < n; ++i) {
    double err = std::fabs(double(got[i]) - ref[i]);
    double tol = atol + rtol * (scale ? scale[i] : std::fabs(ref[i]));
    maxAbs = std::max(maxAbs, err);
    if (std::fabs(ref[i]) >= 1e-3)
      maxRel = std::max(maxRel, err / std::fabs(ref[i]));
    maxRatio = std::max(maxRatio, err / tol);
    if (!(err <= tol)) { // also catches NaN
      if (bad++ == 0)
        firstBad = i;
    }
  }
  std::printf("[ accuracy ] %-44s n=%-6zu max abs %.3g  max rel %.3g  "
              "max err/tol %.3g\n",
              what.c_str(), n, maxAbs, maxRel, maxRatio);
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n
                     << " elements out of tolerance; first at " << firstBad
                     << ": got " << (firstBad < n ? got[firstBad] : 0.0f)
                     << ", expected " << (firstBad < n ? ref[firstBad] : 0.0);
}

inline void expectClose(const std::string &what, const std::vector<float> &got,
                        const std::vector<double> &ref, double rtol,
                        double atol,
                        const std::vector<double> *scale = nullptr) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  expectClose(what, got.data(), ref.data(), got.size(), rtol, atol,
              scale ? scale->data() : nullptr);
}

// Bitwise equality of float buffers (kernels that only move data, or two
// runs that must do the same arithmetic).
inline void expectBitwiseEqual(const std::string &what, const float *got,
                               const float *ref, size_t n) {
  size_t bad = 0, firstBad = n;
  for (size_t i = 0; i < n; ++i)
    if (std::memcmp(&got[i], &ref[i], sizeof(float)) != 0 && bad++ == 0)
      firstBad = i;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n
                     << " elements differ; first at " << firstBad << ": got "
                     << (firstBad < n ? got[firstBad] : 0.0f) << ", expected "
                     << (firstBad < n ? ref[firstBad] : 0.0f);
}

inline void expectBitwiseEqual(const std::string &what,
                               const std::vector<float> &got,
                               const std::vector<float> &ref) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  expectBitwiseEqual(what, got.data(), ref.data(), got.size());
}

/// A scalar the kernels read through a pointer (the learning rate and step
/// count of the optimizers: device memory, which on the CPU backend is any
/// memory), held by a temporary that lives until the end of the call it is
/// written in.
template <typename T> struct ScalarAt {
  T value;
  operator const T *() const { return &value; }
};
inline ScalarAt<double> lrPtr(double lr) { return {lr}; }
inline ScalarAt<int64_t> stepPtr(int64_t step) { return {step}; }

} // namespace sprt_test

#endif // SPRT_TESTS_KERNELTESTUTIL_H

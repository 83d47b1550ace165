//===- DropoutKeyTest.cpp - dropout masks change with the step -----------===//
//
// sprt_op_dropout (and the attention ops) key their Philox draws with the
// step's dropout salt, the run's seed mixed with the step (sprt_set_step
// stages it; the kernels XOR it, read from the step's values,
// into the key the ops pass, sprt_dropout_key()). A
// step's backward regenerates its forward's mask (same seed, step and
// stream); the next step draws a new one; another seed draws another.
//
//===----------------------------------------------------------------------===//

#include "sprt/device.h"
#include "sprt/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

/// Which of n elements dropout keeps (non-zero output) at `seed`, `step`.
std::vector<bool> keptAt(uint64_t seed, int64_t step, int64_t stream) {
  constexpr int64_t n = 4096;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  sprt_set_seed(seed);
  sprt_set_step(step);
  sprt_op_dropout(x.data(), y.data(), 1, n, 1, 1, -1, -1, -1, -1, 0.5, stream);
  std::vector<bool> kept(n);
  for (int64_t i = 0; i < n; ++i)
    kept[i] = y[i] != 0.0f;
  return kept;
}

int64_t differing(const std::vector<bool> &a, const std::vector<bool> &b) {
  int64_t d = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d += a[i] != b[i];
  return d;
}

TEST(DropoutKey, SameStepSameMask) {
  EXPECT_EQ(keptAt(7, 3, 11), keptAt(7, 3, 11));
}

TEST(DropoutKey, EachStepDrawsANewMask) {
  std::vector<bool> s1 = keptAt(7, 1, 11), s2 = keptAt(7, 2, 11);
  // Independent masks at rate 0.5 differ in about half the elements
  // (2048 of 4096, standard deviation 32).
  EXPECT_GT(differing(s1, s2), 1800);
  EXPECT_LT(differing(s1, s2), 2300);
}

TEST(DropoutKey, SeedsAndStreamsDrawDifferentMasks) {
  EXPECT_GT(differing(keptAt(7, 1, 11), keptAt(8, 1, 11)), 1800);
  EXPECT_GT(differing(keptAt(7, 1, 11), keptAt(7, 1, 12)), 1800);
}

TEST(DropoutKey, KeysOfStepsAreDistinct) {
  // The key the draws use: the ops' XOR the step's salt.
  auto drawKey = [] {
    return sprt_dropout_key() ^ sprt_step_values_host()->dropout_salt;
  };
  sprt_set_seed(0);
  std::vector<uint64_t> keys;
  for (int64_t step = 1; step <= 1000; ++step) {
    sprt_set_step(step);
    keys.push_back(drawKey());
  }
  sprt_set_step(1);
  EXPECT_EQ(drawKey(), keys[0]);
  EXPECT_EQ(sprt_step_values_device()->dropout_salt,
            sprt_step_values_host()->dropout_salt); // cpu: one copy
  sprt_set_seed(1);
  sprt_set_step(1); // stages the salt of the seed and the step
  EXPECT_NE(drawKey(), keys[0]) << "another seed";
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
}

} // namespace

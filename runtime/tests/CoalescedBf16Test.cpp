//===- CoalescedBf16Test.cpp - bf16 gradient buckets under mpirun ---------===//
//
// sprt_all_reduce_coalesced and sprt_reduce_scatter_coalesced with bf16
// elements (SPRT_DTYPE_BF16) through the communication layer, against a
// plain reference: the sum of every rank's values, each addition rounded
// to bf16 (sprt/dtype.h). Integers small enough are exact in bf16, so their
// sums are compared exactly; values whose sums round are compared exactly
// with 2 ranks (one addition, in either order) and within one bf16 ulp of
// the magnitude per addition otherwise (MPI may add in any order).
//
//===----------------------------------------------------------------------===//

#include "CollectiveTestUtil.h"

#include "sprt/dtype.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace {
using sprt::dtype::bf16ToF32;
using sprt::dtype::f32ToBf16;
using sprt_test::lineMesh;
using sprt_test::worldSize;

/// Rank r's exact-in-bf16 integer at `index` of tensor `t`: every sum over
/// at most 4 ranks stays below 256, exact in bf16 (8 significant bits).
float integer(int64_t t, int64_t r, int64_t i) {
  return float((t * 7 + r * 13 + i * 5) % 60 - 30);
}

/// Rank r's value whose sums round in bf16: 1 + k/128 plus a part below
/// bf16's resolution at 1 that makes the addition round.
float rounding(int64_t r, int64_t i) {
  return bf16ToF32(f32ToBf16(1.0f + float((r * 3 + i) % 16) / 128.0f +
                             float(r + 1) / 512.0f));
}

/// The bf16 bits of `values`, each rounded.
std::vector<uint16_t> toBf16(const std::vector<float> &values) {
  std::vector<uint16_t> out;
  for (float v : values)
    out.push_back(f32ToBf16(v));
  return out;
}

/// The reference sum over ranks of value(r), added in rank order, each
/// addition rounded to bf16 as the communication layer does.
template <typename F> float referenceSum(int64_t n, F value) {
  float acc = bf16ToF32(f32ToBf16(value(0)));
  for (int64_t r = 1; r < n; ++r)
    acc = bf16ToF32(f32ToBf16(acc + bf16ToF32(f32ToBf16(value(r)))));
  return acc;
}
} // namespace

TEST(CoalescedBf16, AllReduceSumsEachTensorInBf16AndSendsHalfTheBytes) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  int64_t sizes[2] = {3, 5};
  std::vector<float> a(3), b(5);
  for (int64_t i = 0; i < 3; ++i)
    a[size_t(i)] = integer(0, r, i);
  for (int64_t i = 0; i < 5; ++i)
    b[size_t(i)] = integer(1, r, i);
  std::vector<uint16_t> ha = toBf16(a), hb = toBf16(b), ra(3), rb(5);
  const void *ins[2] = {ha.data(), hb.data()};
  void *outs[2] = {ra.data(), rb.data()};
  std::vector<uint16_t> bucket(8);
  sprt_reset_bytes_sent();
  sprt_all_reduce_coalesced(2, ins, outs, sizes, SPRT_DTYPE_BF16, SPRT_SUM, 0,
                            bucket.data(), 8 * 2);
  // A ring all-reduce of 8 bf16 elements: half the bytes of f32.
  EXPECT_EQ(sprt_bytes_sent(0), 2 * (8 * 2 / n) * (n - 1));
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(bf16ToF32(ra[size_t(i)]),
              referenceSum(n, [&](int64_t s) { return integer(0, s, i); }))
        << i;
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_EQ(bf16ToF32(rb[size_t(i)]),
              referenceSum(n, [&](int64_t s) { return integer(1, s, i); }))
        << i;
}

TEST(CoalescedBf16, AllReduceRoundsEachAddition) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t count = 16;
  std::vector<float> x(count);
  for (int64_t i = 0; i < count; ++i)
    x[size_t(i)] = rounding(r, i);
  std::vector<uint16_t> hx = toBf16(x), out(count);
  const void *ins[1] = {hx.data()};
  void *outs[1] = {out.data()};
  int64_t sizes[1] = {count};
  sprt_all_reduce_coalesced(1, ins, outs, sizes, SPRT_DTYPE_BF16, SPRT_SUM, 0,
                            nullptr, 0);
  int rounded = 0;
  for (int64_t i = 0; i < count; ++i) {
    float want = referenceSum(n, [&](int64_t s) { return rounding(s, i); });
    double exact = 0;
    for (int64_t s = 0; s < n; ++s)
      exact += bf16ToF32(f32ToBf16(rounding(s, i)));
    rounded += double(want) != exact;
    float got = bf16ToF32(out[size_t(i)]);
    if (n == 2)
      EXPECT_EQ(got, want) << i;
    else // one bf16 ulp (2^-7 of the magnitude) per addition
      EXPECT_LE(std::fabs(double(got) - exact),
                double(n - 1) * std::ldexp(std::fabs(exact), -7))
          << i;
  }
  // The case exercises rounding: some sums are not bf16 values.
  EXPECT_GT(rounded, 0);
}

TEST(CoalescedBf16, ReduceScatterKeepsEachTensorsBlockInBf16) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // Two tensors of 2n and 3n rows (one element each): rank r keeps rows
  // [2r, 2r + 2) of the first and [3r, 3r + 3) of the second, summed.
  std::vector<float> a(size_t(2 * n)), b(size_t(3 * n));
  for (int64_t i = 0; i < 2 * n; ++i)
    a[size_t(i)] = integer(2, r, i);
  for (int64_t i = 0; i < 3 * n; ++i)
    b[size_t(i)] = integer(3, r, i);
  std::vector<uint16_t> ha = toBf16(a), hb = toBf16(b), ra(2), rb(3);
  const void *ins[2] = {ha.data(), hb.data()};
  void *outs[2] = {ra.data(), rb.data()};
  int64_t sizes[2] = {2 * n, 3 * n};
  // Both tensors' blocks packed (5n), then this rank's reduced blocks (5).
  std::vector<uint16_t> bucket(size_t(5 * n + 5));
  sprt_reset_bytes_sent();
  sprt_reduce_scatter_coalesced(2, ins, outs, sizes, SPRT_DTYPE_BF16, 0,
                                bucket.data(), int64_t(bucket.size()) * 2);
  EXPECT_EQ(sprt_bytes_sent(0), 5 * (n - 1) * 2);
  for (int64_t i = 0; i < 2; ++i)
    EXPECT_EQ(
        bf16ToF32(ra[size_t(i)]),
        referenceSum(n, [&](int64_t s) { return integer(2, s, 2 * r + i); }))
        << i;
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(
        bf16ToF32(rb[size_t(i)]),
        referenceSum(n, [&](int64_t s) { return integer(3, s, 3 * r + i); }))
        << i;
}

TEST(CoalescedBf16, RejectsAnotherKindOrDtype) {
  lineMesh();
  std::vector<uint16_t> x(4, 0), y(4);
  const void *ins[1] = {x.data()};
  void *outs[1] = {y.data()};
  int64_t sizes[1] = {4};
  std::string error = sprt_test::invalidArgument([&] {
    sprt_all_reduce_coalesced(1, ins, outs, sizes, SPRT_DTYPE_BF16, SPRT_MAX, 0,
                              nullptr, 0);
  });
  EXPECT_NE(error.find("reduces bf16 by a sum only"), std::string::npos)
      << error;
  error = sprt_test::invalidArgument([&] {
    sprt_reduce_scatter_coalesced(1, ins, outs, sizes, SPRT_DTYPE_F16, 0,
                                  nullptr, 0);
  });
  EXPECT_NE(error.find("sprt_reduce_scatter_coalesced reduces f32 (0) or "
                       "bf16 (1) elements, got dtype 2"),
            std::string::npos)
      << error;
}

//===- MemoryTest.cpp - the runtime's device allocator --------------------===//
//
// Per-category and total peaks under interleaved allocations, the
// allocator's bookkeeping of device memory, and the CPU backend's scratch
// reported through the scratch observer (sprt/device.h).
//
//===----------------------------------------------------------------------===//

#include "../core/Memory.h"

#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace sprt;

namespace {

constexpr MemoryCategory kArena = MemoryCategory::Arena;
constexpr MemoryCategory kParams = MemoryCategory::Parameters;
constexpr MemoryCategory kTokens = MemoryCategory::Tokens;
constexpr MemoryCategory kScratch = MemoryCategory::Scratch;

int64_t peakOf(const MemoryStats &s, MemoryCategory c) {
  return s.peak[int(c)];
}
int64_t liveOf(const MemoryStats &s, MemoryCategory c) {
  return s.live[int(c)];
}

TEST(Memory, PeaksPerCategoryAndOfTheTotal) {
  MemoryTracker t;
  t.record(kArena, 100);   // total 100
  t.record(kTokens, 50);   // 150
  t.record(kArena, -100);  // 50
  t.record(kTokens, 200);  // 250: tokens' peak
  t.record(kTokens, -250); // 0
  t.record(kArena, 300);   // 300: arena's peak, and the total's
  t.record(kParams, 10);   // 310
  t.record(kParams, -10);  // 300
  MemoryStats s = t.stats();
  EXPECT_EQ(peakOf(s, kArena), 300);
  EXPECT_EQ(peakOf(s, kTokens), 250);
  EXPECT_EQ(peakOf(s, kParams), 10);
  EXPECT_EQ(peakOf(s, kScratch), 0);
  // The largest sum at one moment, not the sum of the peaks (560).
  EXPECT_EQ(s.peakTotal, 310);
  EXPECT_EQ(s.liveTotal, 300);
  EXPECT_EQ(liveOf(s, kArena), 300);
  EXPECT_EQ(liveOf(s, kTokens), 0);
}

TEST(Memory, TotalPeakWhenCategoriesPeakTogether) {
  MemoryTracker t;
  t.record(kArena, 64);
  t.record(kScratch, 8);
  t.record(kScratch, -8);
  t.record(kTokens, 32);
  t.record(kScratch, 16); // 64 + 32 + 16
  t.record(kTokens, -32);
  t.record(kScratch, -16);
  MemoryStats s = t.stats();
  EXPECT_EQ(s.peakTotal, 112);
  EXPECT_EQ(peakOf(s, kScratch), 16);
  EXPECT_EQ(s.liveTotal, 64);
}

TEST(Memory, UnplannedPeakIsTheLargestSumOfTheOtherCategories) {
  MemoryTracker t;
  t.setPlanned(kArena);
  t.setPlanned(kParams);
  t.record(kParams, 1000);
  t.record(kArena, 500);
  t.record(kTokens, 40);  // unplanned 40
  t.record(kScratch, 30); // 70
  t.record(kScratch, -30);
  t.record(kTokens, 20);  // 60
  t.record(kScratch, 50); // 110: the unplanned peak
  t.record(kArena, -500); // planned bytes do not count
  t.record(kScratch, -50);
  MemoryStats s = t.stats();
  EXPECT_EQ(s.peakUnplanned, 110);
  EXPECT_EQ(s.liveUnplanned, 60);
  EXPECT_EQ(s.peakTotal, 1000 + 500 + 110);
}

TEST(Memory, UnplannedPeakIsNotTheSumOfPeaks) {
  MemoryTracker t;
  t.setPlanned(kArena);
  t.record(kArena, 64);
  t.record(kScratch, 16);
  t.record(kScratch, -16);
  t.record(kTokens, 32);
  MemoryStats s = t.stats();
  EXPECT_EQ(s.peakUnplanned, 32);
  EXPECT_EQ(peakOf(s, kScratch) + peakOf(s, kTokens), 48);
  EXPECT_EQ(s.peakTotal, 64 + s.peakUnplanned);
}

TEST(Memory, CategoriesByName) {
  MemoryCategory c;
  ASSERT_TRUE(memoryCategoryNamed("optimizer_state", c));
  EXPECT_EQ(c, MemoryCategory::OptimizerState);
  ASSERT_TRUE(memoryCategoryNamed("arena", c));
  EXPECT_EQ(c, kArena);
  EXPECT_FALSE(memoryCategoryNamed("activations", c));
}

TEST(Memory, ReleasingMoreThanAllocatedThrows) {
  MemoryTracker t;
  t.record(kArena, 10);
  EXPECT_THROW(t.record(kArena, -11), std::logic_error);
  EXPECT_THROW(t.record(kTokens, -1), std::logic_error);
  EXPECT_EQ(t.stats().liveTotal, 10);
}

TEST(Memory, AllocateCountsUntilReleased) {
  ASSERT_EQ(sprt_device_init(0), nullptr);
  MemoryStats before = memoryTracker().stats();
  void *a = allocate(1000, kParams);
  void *b = allocate(24, kTokens);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MemoryStats during = memoryTracker().stats();
  EXPECT_EQ(liveOf(during, kParams) - liveOf(before, kParams), 1000);
  EXPECT_EQ(liveOf(during, kTokens) - liveOf(before, kTokens), 24);
  EXPECT_EQ(during.liveTotal - before.liveTotal, 1024);
  EXPECT_GE(during.peakTotal, during.liveTotal);
  EXPECT_GE(peakOf(during, kParams), 1000);
  // Zeroed, as sprt_device_alloc's memory.
  std::vector<char> host(1000, 1);
  sprt_memcpy_to_host(host.data(), a, 1000, sprt_current_stream());
  sprt_stream_synchronize(sprt_current_stream());
  EXPECT_EQ(host, std::vector<char>(1000, 0));
  release(a);
  release(b);
  release(nullptr);
  MemoryStats after = memoryTracker().stats();
  EXPECT_EQ(after.liveTotal, before.liveTotal);
  EXPECT_EQ(after.peakTotal, during.peakTotal);
}

TEST(Memory, ReleasingAForeignPointerThrows) {
  ASSERT_EQ(sprt_device_init(0), nullptr);
  void *p = sprt_device_alloc(64);
  EXPECT_THROW(release(p), std::logic_error);
  sprt_device_free(p);
}

/// The scratch observer of the tests below.
MemoryTracker *observed = nullptr;
void observe(int64_t delta) { observed->record(kScratch, delta); }

/// Runs `kernel` with the backend's scratch reported to a fresh tracker.
template <typename F> MemoryStats scratchOf(F kernel) {
  MemoryTracker t;
  observed = &t;
  sprt_set_scratch_observer(observe);
  kernel();
  sprt_set_scratch_observer(nullptr);
  observed = nullptr;
  return t.stats();
}

TEST(Memory, CpuKernelScratchIsReported) {
  if (std::string(sprt_backend_name()) != "cpu")
    GTEST_SKIP() << "the exact sizes are the CPU kernels'";
  const int64_t T = 3, H = 1000;
  const size_t rows = size_t(T * H), row = size_t(H);
  std::vector<float> dy(rows, 1.0f), x(rows, 0.5f), w(row, 1.0f), dx(rows),
      dw(row), db(row);
  // bias_grad: one row of double accumulators.
  MemoryStats bias =
      scratchOf([&] { sprt_bias_grad_f32(dy.data(), db.data(), T, H); });
  EXPECT_EQ(peakOf(bias, kScratch), H * 8);
  EXPECT_EQ(bias.liveTotal, 0);
  // layer_norm_grad: dw, db, xhat and g accumulators, in double.
  MemoryStats norm = scratchOf([&] {
    sprt_layer_norm_grad_f32(dy.data(), x.data(), w.data(), dx.data(),
                             dw.data(), db.data(), T, H, 1e-5);
  });
  EXPECT_EQ(peakOf(norm, kScratch), 4 * H * 8);
  EXPECT_EQ(norm.liveTotal, 0);
  // Attention: the rotary tables (inv_freq, cos, sin), the q/k/v panels of
  // one head and one block of scores (S <= the 128-row block).
  const int64_t S = 16, B = 1, heads = 2, D = 8, half = D / 2;
  const size_t elems = size_t(S * B * heads * D);
  std::vector<float> q(elems, 0.1f), out(elems);
  MemoryStats attn = scratchOf([&] {
    sprt_attention_f32(q.data(), q.data(), q.data(), nullptr, out.data(), S, S,
                       0, B, heads, heads, D, 1, 0, D, 10000.0, 0.0, 1, 2, B, 0,
                       heads, 0);
  });
  EXPECT_EQ(peakOf(attn, kScratch),
            (half + 2 * S * half) * 4 + 3 * S * D * 4 + S * S * 4);
  EXPECT_EQ(attn.liveTotal, 0);
}

TEST(Memory, BackendScratchCountsInTheProcessTracker) {
  if (std::string(sprt_backend_name()) != "cpu")
    GTEST_SKIP() << "the exact sizes are the CPU kernels'";
  const int64_t T = 2, H = 4096;
  const size_t rows = size_t(T * H), row = size_t(H);
  std::vector<float> dy(rows, 1.0f), db(row);
  trackBackendScratch();
  MemoryStats before = memoryTracker().stats();
  sprt_bias_grad_f32(dy.data(), db.data(), T, H);
  MemoryStats after = memoryTracker().stats();
  sprt_set_scratch_observer(nullptr);
  EXPECT_GE(peakOf(after, kScratch), H * 8);
  EXPECT_GE(after.peakTotal, before.liveTotal + H * 8);
  EXPECT_EQ(after.liveTotal, before.liveTotal);
}

} // namespace

//===- WatchdogTest.cpp - operations that must complete in time -----------===//
//
// The NCCL communicators' --timeout (comm/Watchdog.h) without a GPU: the
// operations are predicates here, where NcclComm polls CUDA events.
//
//===----------------------------------------------------------------------===//

#include "../comm/Watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace sprt;
using Clock = std::chrono::steady_clock;

namespace {

TEST(Watchdog, CompletedOperationsNeverExpire) {
  std::atomic<int> calls{0};
  std::atomic<bool> finished{false};
  {
    Watchdog dog(0.3, 0.02, [&](const std::string &) { ++calls; });
    dog.watch("all_reduce over mesh axis 'dp' (2 ranks) at step 1",
              [&] { return finished.load(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(dog.pending(), 1u);
    finished = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(dog.pending(), 0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  EXPECT_EQ(calls.load(), 0);
}

TEST(Watchdog, AStoppedOperationExpiresOnceAfterTheTimeout) {
  std::atomic<int> calls{0};
  std::string named;
  Clock::time_point when;
  auto start = Clock::now();
  {
    Watchdog dog(0.25, 0.02, [&](const std::string &what) {
      if (calls++ == 0) {
        named = what;
        when = Clock::now();
      }
    });
    dog.watch("all_gather over mesh axis 'tp' (2 ranks) at step 3",
              [] { return false; });
    dog.watch("reduce_scatter over mesh axis 'tp' (2 ranks) at step 3",
              [] { return false; });
    // Until it fires (at most 5 s, for a loaded machine), then a while.
    while (calls.load() == 0 && Clock::now() - start < std::chrono::seconds(5))
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(calls.load(), 1) << "expired once for the job";
  EXPECT_EQ(named, "all_gather over mesh axis 'tp' (2 ranks) at step 3");
  double after = std::chrono::duration<double>(when - start).count();
  EXPECT_GE(after, 0.25);
  // A few polls after the timeout (2 s of slack for a loaded machine).
  EXPECT_LT(after, 0.25 + 2.0);
}

TEST(Watchdog, StopsPromptlyWithOperationsPending) {
  auto start = Clock::now();
  {
    Watchdog dog(600, 5.0, [](const std::string &) {});
    dog.watch("send", [] { return false; });
  }
  // Woken, not after its 5 s poll nor the 600 s timeout (slack for a
  // loaded machine).
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 2.0);
}

} // namespace

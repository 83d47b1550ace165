//===- BubbleTest.cpp - the pipeline bubble, measured (under mpirun) ------===//
//
// The theory (P-1)/(M+P-1) and the summary line against hand-computed
// figures, and the waits the point-to-point layer counts: a recv that waits
// for a sender counts a positive time, a count is reset when taken, and
// every rank's fraction reaches rank 0's summary.
//
//===----------------------------------------------------------------------===//

#include "../driver/Bubble.h"
#include "../core/PointToPoint.h"
#include "CollectiveTestUtil.h"

#include "sprt/runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {
using sprt_test::worldSize;

TEST(Bubble, TheoryAndSummaryLine) {
  EXPECT_EQ(sprt::theoreticalBubble(1, 8), 0.0);
  EXPECT_DOUBLE_EQ(sprt::theoreticalBubble(2, 1), 1.0 / 2.0);
  EXPECT_DOUBLE_EQ(sprt::theoreticalBubble(2, 4), 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(sprt::theoreticalBubble(4, 8), 3.0 / 11.0);
  // Mean (0.3 + 0.5) / 2 = 0.4; theory 1/3; ratio 1.2.
  EXPECT_EQ(sprt::bubbleLine({0.3, 0.5}, 2, 2, 2, 20),
            "pipeline bubble: measured 0.400 (mean of 2 ranks; min 0.300, "
            "max 0.500; steps 2..20), theory (P-1)/(M+P-1) = 0.333 (P 2, M "
            "2), measured / theory 1.20\n");
  sprt::BubbleMeter meter;
  EXPECT_EQ(meter.fraction(), 0.0);
  meter.add(0.25, 1.0);
  meter.add(0.75, 1.0);
  EXPECT_EQ(meter.steps, 2);
  EXPECT_DOUBLE_EQ(meter.fraction(), 0.5);
}

// Rank 1 sends after a pause; rank 0's recv waits for it: a positive wait,
// reset when taken. Rank 0's summary holds every rank's fraction.
TEST(Bubble, RecvWaitsAreCountedAndGathered) {
  const int64_t sizes[1] = {worldSize()};
  ASSERT_EQ(sprt_mesh_init(1, sizes), 0);
  const int64_t me = sprt_world_rank();
  sprt::takePointToPointWait();
  float x = 1.0f;
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sprt_send(&x, 4, -1, 0);
    sprt_complete_sends();
  } else if (me == 0) {
    sprt_recv(&x, 4, 1, 0);
  }
  double waited = sprt::takePointToPointWait();
  if (me == 0) {
    EXPECT_GT(waited, 0.0);
  }
  EXPECT_GE(waited, 0.0);
  EXPECT_EQ(sprt::takePointToPointWait(), 0.0);

  // Rank r's fraction is r / (2 * world): the mean and the extremes.
  sprt::BubbleMeter meter;
  meter.add(double(me), 2.0 * double(worldSize()));
  std::string line = sprt::gatherBubble(meter, 2, 2, 2, 3);
  if (me != 0) {
    EXPECT_EQ(line, "");
    return;
  }
  std::vector<double> expected;
  for (int64_t r = 0; r < worldSize(); ++r)
    expected.push_back(double(r) / (2.0 * double(worldSize())));
  EXPECT_EQ(line, sprt::bubbleLine(expected, 2, 2, 2, 3));
}
} // namespace

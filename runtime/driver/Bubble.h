//===- Bubble.h - the pipeline bubble, measured -----------------*- C++ -*-===//
//
// With pipeline parallelism a rank idles while its stage waits for another:
// in a recv (dist.recv: the activation or gradient of a neighbouring stage,
// the tied weights' exchange) and until its sends complete. The runtime
// times those waits (core/PointToPoint.h: sprt_recv's wait for its data,
// sprt_complete_sends' wait for the sends) per step and rank, and reports
// them against the rank's step time (from the barrier that starts the step
// to the end of its work, the stream synchronized): the measured bubble
// fraction, next to the theory of a 1F1B schedule, (P-1)/(M+P-1) for P
// stages and M micro-batches. Nothing of it is derived from the plan.
// The waits are the host's: meaningful where the communication layer
// blocks the host (MPI). Over NCCL a wait only makes the compute stream
// wait, so the host's figure says nothing of the schedule there (not
// measured on the CUDA backend).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_BUBBLE_H
#define SPRT_DRIVER_BUBBLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace sprt {

/// (P-1)/(M+P-1): the idle fraction of a 1F1B (or GPipe) schedule of P
/// stages and M micro-batches whose stages take equal time.
double theoreticalBubble(int64_t stages, int64_t microBatches);

/// One rank's waits and step times summed over the steps counted.
struct BubbleMeter {
  double waitSeconds = 0.0, stepSeconds = 0.0;
  int64_t steps = 0;
  void add(double wait, double step) {
    waitSeconds += wait;
    stepSeconds += step;
    ++steps;
  }
  /// The fraction of the step time spent waiting (0 without steps).
  double fraction() const {
    return stepSeconds > 0.0 ? waitSeconds / stepSeconds : 0.0;
  }
};

/// The summary line of the measured fractions `byRank` (one per rank, each
/// its waits over its step times over steps `first`..`last`) next to the
/// theory for `stages` and `microBatches`, e.g. "pipeline bubble: measured
/// 0.412 (mean of 4 ranks; min 0.301, max 0.500; steps 2..20), theory
/// (P-1)/(M+P-1) = 0.333 (P 2, M 2), measured / theory 1.24\n".
std::string bubbleLine(const std::vector<double> &byRank, int64_t stages,
                       int64_t microBatches, int64_t first, int64_t last);

/// Collective over the world: every rank's fraction of `meter`, gathered;
/// the summary line on rank 0 ("" on the others).
std::string gatherBubble(const BubbleMeter &meter, int64_t stages,
                         int64_t microBatches, int64_t first, int64_t last);

} // namespace sprt

#endif // SPRT_DRIVER_BUBBLE_H

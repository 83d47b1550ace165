//===- StepReport.h - what a step reports -----------------------*- C++ -*-===//
//
// A step's result (loss, gradient norm, schedule, skips, timings) and its
// reports: the metrics log's JSON line (--log) and the numbers of the
// progress line.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_STEPREPORT_H
#define SPRT_DRIVER_STEPREPORT_H

#include "Model.h"
#include "Observability.h"

#include <cstdint>
#include <string>

namespace sprt {

/// A number as JSON: NaN and Inf, which JSON cannot hold, become null.
std::string jsonNumber(double x);

/// A scalar for messages: "nan" and "inf" without a sign for NaN.
std::string text(double x);

/// The progress line's numbers: six decimals, or nan / inf.
std::string fixed(double x);

/// What a step returned, and whether its update was applied.
struct StepResult {
  int64_t step = 0;
  float loss = 0.0f, norm = 0.0f;
  bool hasNorm = false, skipped = false;
  double seconds = 0.0;
  /// The learning rate of the step's update (a train step).
  double lr = 0.0;
  bool hasLr = false;
  /// The loss scale the step used (a program with loss scaling); an
  /// overflow is a skipped step with a non-finite norm.
  double lossScale = 1.0;
  bool hasLossScale = false, overflow = false;
  /// With pipeline parallelism: this rank's seconds waiting in the step's
  /// point-to-point recvs and send completion, and the step's time
  /// (Bubble.h).
  bool hasPipeline = false;
  double pipelineWait = 0.0, workSeconds = 0.0;
  /// The epoch of the step's first sequence (shuffled or packed tokenized
  /// data), or -1.
  int64_t epoch = -1;
  /// The run's first step: seconds from the process's start to the step,
  /// and of them the parameters' initialisation or load; -1 on later steps.
  double startupSeconds = -1.0, paramSeconds = -1.0;
  /// A step that saved a checkpoint: the seconds the save took and the bytes
  /// it wrote (rank 0's files); -1 otherwise.
  double checkpointSeconds = -1.0;
  int64_t checkpointBytes = 0;
  /// On a backend with graphs, how the step ran: "eager", "captured" or
  /// "replayed" (GraphStep.h); null elsewhere.
  const char *graph = nullptr;
};

/// The metrics line of a step (valid JSON whatever the values).
std::string metricsLine(const Model &model, const StepResult &r,
                        int64_t skippedSoFar, const Throughput &speed);

/// What is not finite in a step's result, e.g. "the loss is nan", or "".
/// An overflow of loss-scaled gradients is the loss scaler's, not this.
std::string nonFinite(const StepResult &r);

} // namespace sprt

#endif // SPRT_DRIVER_STEPREPORT_H

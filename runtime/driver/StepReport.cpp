//===- StepReport.cpp - what a step reports -------------------------------===//

#include "StepReport.h"

#include "MemoryReport.h"
#include "Schedule.h"

#include "sprt/runtime.h"

#include <cmath>
#include <cstdio>

using namespace sprt;

/// A number as JSON: NaN and Inf, which JSON cannot hold, become null.
std::string sprt::jsonNumber(double x) {
  if (!std::isfinite(x))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

/// A scalar for messages: "nan" and "inf" without a sign for NaN.
std::string sprt::text(double x) {
  if (std::isnan(x))
    return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

/// The progress line's numbers: six decimals, or nan / inf.
std::string sprt::fixed(double x) {
  if (!std::isfinite(x))
    return text(x);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", x);
  return buf;
}

/// The metrics line of a step (valid JSON whatever the values).
std::string sprt::metricsLine(const Model &model, const StepResult &r,
                              int64_t skippedSoFar, const Throughput &speed) {
  std::string line = "{\"step\": " + std::to_string(r.step) +
                     ", \"loss\": " + jsonNumber(r.loss) +
                     ", \"step_time_s\": " + jsonNumber(r.seconds) +
                     throughputJson(speed);
  if (r.hasPipeline)
    line +=
        ", \"pipeline_wait_s\": " + jsonNumber(r.pipelineWait) +
        ", \"pipeline_bubble\": " +
        jsonNumber(r.workSeconds > 0.0 ? r.pipelineWait / r.workSeconds : 0.0);
  if (r.hasNorm)
    line += ", \"grad_norm\": " + jsonNumber(r.norm);
  if (r.hasLr)
    line += ", \"lr\": " + shortestText(r.lr);
  if (r.hasLossScale)
    line += ", \"loss_scale\": " + shortestText(r.lossScale);
  if (r.epoch >= 0)
    line += ", \"epoch\": " + std::to_string(r.epoch);
  if (r.graph)
    line += std::string(", \"graph\": \"") + r.graph + "\"";
  // With loss scaling every skipped step is an overflow's.
  if (skippedSoFar || r.hasLossScale)
    line += std::string(", \"skipped\": ") + (r.skipped ? "true" : "false") +
            ", \"skipped_steps\": " + std::to_string(skippedSoFar);
  line += ", \"bytes_sent\": {";
  for (size_t a = 0; a < model.axes.size(); ++a)
    line += (a ? ", \"" : "\"") + model.axes[a] +
            "\": " + std::to_string(sprt_bytes_sent(int32_t(a)));
  line += "}, \"memory\": " + memoryJson(model) +
          ", \"arena_bytes\": " + std::to_string(model.arenaBytes) +
          ", \"workspace_bytes\": " + std::to_string(model.workspaceBytes);
  if (r.checkpointSeconds >= 0.0)
    line += ", \"checkpoint_s\": " + jsonNumber(r.checkpointSeconds) +
            ", \"checkpoint_bytes\": " + std::to_string(r.checkpointBytes);
  if (r.startupSeconds >= 0.0)
    line += ", \"startup_s\": " + jsonNumber(r.startupSeconds) +
            ", \"init_params_s\": " + jsonNumber(r.paramSeconds);
  return line + "}\n";
}

/// What is not finite in a step's result, e.g. "the loss is nan", or "".
/// An overflow of loss-scaled gradients is the loss scaler's, not this.
std::string sprt::nonFinite(const StepResult &r) {
  std::string what;
  if (!std::isfinite(r.loss))
    what = "the loss is " + text(r.loss);
  if (r.hasNorm && !std::isfinite(r.norm) && !r.hasLossScale)
    what += (what.empty() ? "" : " and ") +
            std::string("the gradient norm is ") + text(r.norm);
  return what;
}

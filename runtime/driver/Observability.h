//===- Observability.h - --trace, --peak-flops and throughput ---*- C++ -*-===//
//
// The program's observability flags and figures:
// - --trace FILE|DIR: each rank writes its trace (Trace.h) at the end of a
//   run that did not fail, atomically (a temporary renamed after fsync): to
//   FILE with ".rank<R>" inserted before its extension (trace.json ->
//   trace.rank0.json; "trace" -> trace.rank0.json), or, when the value is
//   an existing directory or ends in '/', to DIR/trace.rank<R>.json.
// - throughput of each step: tokens/s (the step's global tokens, batch x
//   sequence over every data-parallel replica and micro-batch, over its
//   step time), the FLOP/s one rank achieved (the compiler's FLOPs per
//   rank and step, every micro-batch's and recompute included, over the
//   step time) and, with --peak-flops X (one rank's peak FLOP/s), MFU (the
//   model's FLOPs, recompute excluded, over X) and HFU (every FLOP
//   performed over X).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_OBSERVABILITY_H
#define SPRT_DRIVER_OBSERVABILITY_H

#include "Model.h"

#include <string>

namespace sprt {

/// The file rank `rank` writes the trace to (see above).
std::string traceFile(const std::string &trace, int rank);

/// Empty when a trace can be written to `path` (its directory exists and is
/// writable, and it is not a directory itself); otherwise why not.
std::string traceFileProblem(const std::string &path);

/// Writes this rank's trace to `path` atomically; false with `error` set.
bool writeTrace(const std::string &path, std::string &error);

/// A step's throughput.
struct Throughput {
  double tokensPerSecond = 0;
  /// This rank's FLOP/s.
  double flopsPerSecond = 0;
  /// Model and hardware FLOPs utilization, or negative without
  /// --peak-flops.
  double mfu = -1, hfu = -1;
};

/// The throughput of a step of `seconds` (0 when `seconds` is not > 0).
Throughput throughput(const Model &model, double seconds, double peakFlops);

/// For the progress line: "1.23k tok/s, 4.56 GFLOP/s/rank[, MFU 7.8%]".
std::string throughputText(const Throughput &t);

/// For the metrics line: ", \"tokens_per_s\": ..., \"flops_per_s\": ...
/// [, \"mfu\": ..., \"hfu\": ...]".
std::string throughputJson(const Throughput &t);

} // namespace sprt

#endif // SPRT_DRIVER_OBSERVABILITY_H

//===- Trace.h - a Chrome / Perfetto trace of a rank ------------*- C++ -*-===//
//
// With --trace, a program records, per rank, a timeline in the Chrome trace
// event format (JSON, opened by Perfetto and chrome://tracing):
// - every op of the compiled step as a complete span ("ph": "X", category
//   "op"): the step calls sprt_trace_begin / sprt_trace_end around the
//   runtime calls of each op (convert-sp-to-runtime emits them), named by
//   the op ("tfm.linear") with the Hugging Face module it comes from;
// - every collective entry point of the runtime ABI (Collectives.cpp,
//   TrainOps.cpp, FusedOps.cpp, PointToPoint.cpp) as a span of category
//   "collective" (a TraceSpan) with the mesh axis and the bytes this rank
//   sent in it (as counted for the metrics' bytes_sent; nested spans count
//   their own too), a send's and recv's with the peer's coordinate on the
//   axis (the process_name's "mesh" gives the rank's coordinates);
// - each step as a span of category "step" (main(): the interval its
//   step_time_s measures);
// - a counter ("ph": "C") of the live bytes of the runtime's allocator
//   (Memory.h), sampled at every change: its largest value is the measured
//   peak_bytes.
// Times are host times of the rank's main thread in microseconds of the
// monotonic clock (the same clock on every rank of one machine); tid is 0.
// On a GPU backend the spans are when the host issued the work.
//
// When tracing is off every hook returns after one test of a flag.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_TRACE_H
#define SPRT_CORE_TRACE_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace sprt {

namespace detail {
extern std::atomic<bool> traceOn;
} // namespace detail

/// Whether this rank is recording a trace.
inline bool tracing() {
  return detail::traceOn.load(std::memory_order_relaxed);
}

/// Starts recording the trace of `rank` (before the first allocation, so
/// that the memory counter sees every byte).
void startTrace(int rank);

/// Records step `step` as a span from `begin` to `end`.
void traceStep(int64_t step, std::chrono::steady_clock::time_point begin,
               std::chrono::steady_clock::time_point end);

/// Records a sample of the allocator's live bytes (Memory.cpp, at every
/// change).
void traceLiveBytes(int64_t liveBytes);

/// The trace recorded so far as Chrome trace event JSON.
std::string traceJson();

/// A collective's span, from construction to destruction, with its mesh
/// axis and the bytes this rank sent on it meanwhile; a send's or recv's
/// also with its peer's coordinate along the axis.
class TraceSpan {
public:
  TraceSpan(const char *name, int32_t axis, int32_t peer = -1) {
    if (tracing())
      begin(name, axis, peer);
  }
  ~TraceSpan() {
    if (name)
      end();
  }
  TraceSpan(const TraceSpan &) = delete;
  TraceSpan &operator=(const TraceSpan &) = delete;

private:
  void begin(const char *name, int32_t axis, int32_t peer);
  void end();

  const char *name = nullptr;
  int32_t axis = -1, peer = -1;
  int64_t sentBefore = 0, seq = 0;
  int64_t start = 0;
};

} // namespace sprt

#endif // SPRT_CORE_TRACE_H

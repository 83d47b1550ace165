//===- MemoryReport.h - the measured memory, next to the plan ---*- C++ -*-===//
//
// What the runtime's allocator measured (Memory.h), each category's peak
// beside the compiler's plan, for the metrics log and the exit line.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_MEMORYREPORT_H
#define SPRT_DRIVER_MEMORYREPORT_H

#include "Model.h"

#include <cstdint>
#include <string>

namespace sprt {

/// "1.5 MiB", "3.0 KiB", "12 B".
std::string humanBytes(int64_t bytes);
/// The allocator's figures as JSON: the total peak and live bytes, the
/// process's peak resident set, each category's peak, the peak of the
/// categories the plan does not cover, the most workspace bytes any call
/// needed, overall and per dist op, and the plan (labelled "planned").
std::string memoryJson(const Model &model);
/// The exit line: the measured peaks, the planned peak beside them with the
/// measured peak of what the plan does not cover, the workspace used and
/// planned, the resident set.
std::string memoryLine(const Model &model);

} // namespace sprt

#endif // SPRT_DRIVER_MEMORYREPORT_H

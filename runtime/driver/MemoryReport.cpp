//===- MemoryReport.cpp - the measured memory, next to the plan ----------===//

#include "MemoryReport.h"
#include "Memory.h"
#include "Workspace.h"

#include <cstdio>

#include <sys/resource.h>

using namespace sprt;

std::string sprt::humanBytes(int64_t b) {
  char buf[32];
  if (b >= (1 << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1 << 20));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%lld B", (long long)b);
  return buf;
}

/// The process's peak resident set (getrusage: ru_maxrss, KiB on Linux) in
/// bytes.
static int64_t maxResidentBytes() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return -1;
  return int64_t(usage.ru_maxrss) * 1024;
}

/// The allocator's figures as JSON: the total peak and live bytes, the
/// process's peak resident set, each category's peak, the peak of the
/// categories the plan does not cover, the most workspace bytes (in the
/// arena) any call needed, overall and per dist op, and the plan (labelled
/// "planned").
std::string sprt::memoryJson(const Model &model) {
  MemoryStats m = memoryTracker().stats();
  std::string json =
      "{\"peak_bytes\": " + std::to_string(m.peakTotal) +
      ", \"live_bytes\": " + std::to_string(m.liveTotal) +
      ", \"max_rss_bytes\": " + std::to_string(maxResidentBytes()) +
      ", \"by_category\": {";
  for (int c = 0; c < kNumMemoryCategories; ++c)
    json += std::string(c ? ", \"" : "\"") +
            memoryCategoryName(MemoryCategory(c)) +
            "\": " + std::to_string(m.peak[c]);
  WorkspaceUse w = workspaceUse();
  json += "}, \"workspace_used_bytes\": " + std::to_string(w.most) +
          ", \"workspace_used_by_op\": {";
  bool first = true;
  for (const auto &[op, bytes] : w.byOp) {
    json += std::string(first ? "\"" : ", \"") + op +
            "\": " + std::to_string(bytes);
    first = false;
  }
  json +=
      "}, \"unplanned_peak_bytes\": " + std::to_string(m.peakUnplanned) +
      ", \"planned\": {\"peak_bytes\": " + std::to_string(model.plannedPeak) +
      ", \"by_category\": {";
  for (size_t i = 0; i < model.planned.size(); ++i)
    json += std::string(i ? ", \"" : "\"") + model.planned[i].first +
            "\": " + std::to_string(model.planned[i].second);
  return json + "}}}";
}

/// The exit line: the measured peaks, the planned peak next to them with
/// the measured peak of what the plan does not cover, the workspace used
/// and planned, the resident set.
std::string sprt::memoryLine(const Model &model) {
  MemoryStats m = memoryTracker().stats();
  std::string line = "memory: peak " + humanBytes(m.peakTotal) + " (";
  for (int c = 0; c < kNumMemoryCategories; ++c)
    line += std::string(c ? ", " : "") + memoryCategoryName(MemoryCategory(c)) +
            " " + humanBytes(m.peak[c]);
  // With pipeline parallelism, rank 0's stage: its figures are that
  // stage's (Model::selectStage).
  line += ") on rank 0" +
          (model.pipelineAxis >= 0
               ? " (pipeline stage " + std::to_string(model.stage) + " of " +
                     std::to_string(model.numStages()) + ")"
               : std::string()) +
          "; planned peak " + humanBytes(model.plannedPeak) + " (";
  for (size_t i = 0; i < model.planned.size(); ++i)
    line += std::string(i ? ", " : "") + model.planned[i].first + " " +
            humanBytes(model.planned[i].second);
  line += ") + unplanned peak " + humanBytes(m.peakUnplanned) + " (";
  bool first = true;
  for (int c = 0; c < kNumMemoryCategories; ++c) {
    const char *name = memoryCategoryName(MemoryCategory(c));
    bool planned = false;
    for (const auto &p : model.planned)
      planned |= p.first == name;
    if (planned)
      continue;
    line += std::string(first ? "" : ", ") + name;
    first = false;
  }
  return line + "); workspace used " + humanBytes(workspaceUse().most) +
         ", planned " + humanBytes(model.workspaceBytes) +
         " (in the arena); peak resident " + humanBytes(maxResidentBytes()) +
         "\n";
}

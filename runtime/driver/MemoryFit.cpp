//===- MemoryFit.cpp - does the plan fit the device, before step 1 --------===//

#include "MemoryFit.h"
#include "Comm.h"
#include "Failure.h"

#include "sprt/device.h"

#include <cstdio>

using namespace sprt;

static std::string gib(int64_t bytes) {
  char buf[32];
  if (bytes >= (int64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / (1 << 30));
  else if (bytes >= (1 << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024);
  return buf;
}

/// Whether some parameter's optimizer state is sliced (ZeRO-1).
static bool shardsOptimizerState(const Model &model) {
  for (size_t i = 0; i < model.params.size(); ++i)
    if (model.stateSlicing(int64_t(i)).sliced())
      return true;
  return false;
}

std::string sprt::memoryFitProblem(const Model &model, int64_t needed,
                                   int ranksOnDevice, int64_t freeBytes,
                                   const std::string &device) {
  if (needed <= freeBytes)
    return {};
  std::string line =
      "the plan does not fit: " + gib(needed) + " needed on " + device + " (";
  for (size_t i = 0; i < model.planned.size(); ++i)
    line += (i ? ", " : "") + model.planned[i].first + " " +
            gib(model.planned[i].second);
  line += ranksOnDevice > 1
              ? " per rank, " + std::to_string(ranksOnDevice) + " ranks on it"
              : std::string(" on this rank");
  line += ") but " + gib(freeBytes) + " are free; lower it with sp-compile ";
  std::string flags;
  auto suggest = [&](const std::string &flag) {
    flags += (flags.empty() ? "" : ", ") + flag;
  };
  if (model.training() && model.recomputeFlopsPerStep == 0)
    suggest("--recompute selective or full");
  if (model.optimizer == Optimizer::adamw && !shardsOptimizerState(model))
    suggest("--zero 1 with --dp 2 or more");
  if (!model.hasPrecision || model.precisionType == DType::F32)
    suggest("--precision bf16");
  suggest("more --tp or --pp (more ranks, each holding less)");
  return line + flags;
}

void sprt::checkMemoryFit(const Model &model) {
  // The backend's own workspaces first, every rank's before any measures
  // (sumOnNode orders them): the plan must fit in what they leave.
  const char *workspaces = sprt_device_reserve_workspaces();
  auto [needed, sharing] =
      World::sumOnNode(model.plannedPeak, sprt_device_key());
  int64_t freeBytes = 0, totalBytes = 0;
  std::string problem;
  if (workspaces) {
    problem = std::string(sprt_backend_name()) + " backend: " + workspaces;
  } else if (sprt_device_memory(&freeBytes, &totalBytes) == 0) {
    std::string where = std::string(sprt_backend_name()) == "cpu"
                            ? std::string("this node's host memory")
                            : std::string(sprt_backend_name()) + " device " +
                                  std::to_string(sprt_device_id());
    problem = memoryFitProblem(model, needed, sharing, freeBytes, where);
  }
  // Every rank has measured before any allocates (a rank sharing the
  // device would see less free), and they stop together.
  if (!allAgree(problem.empty()))
    fatal(problem.empty() ? "another rank's plan does not fit its device"
                          : problem);
}

//===- MicroBatch.cpp - micro-batches of a step and their batch rows ------===//

#include "MicroBatch.h"
#include "Failure.h"
#include "Mesh.h"

#include "sprt/runtime.h"

using namespace sprt;

std::string sprt::microBatchProblem(int64_t index, int64_t count) {
  if (count >= 1 && index >= 0 && index < count)
    return "";
  return "sprt_set_micro_batch(" + std::to_string(index) + ", " +
         std::to_string(count) +
         "): the index must be in [0, count) and the count at least 1";
}

extern "C" void sprt_set_micro_batch(int64_t index, int64_t count) {
  std::string problem = microBatchProblem(index, count);
  if (!problem.empty())
    fatal(problem);
  mesh().microBatch = index;
  mesh().microBatches = count;
}

int64_t sprt::microBatchIndex() { return mesh().microBatch; }
int64_t sprt::microBatchCount() { return mesh().microBatches; }

BatchGeometry sprt::batchGeometry(int64_t localRows, int32_t batchAxis) {
  const int64_t microGlobal = localRows * sprt_axis_size(batchAxis);
  return {microGlobal * mesh().microBatches,
          mesh().microBatch * microGlobal +
              sprt_axis_coord(batchAxis) * localRows};
}

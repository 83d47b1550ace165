//===- MicroBatch.h - a step's micro-batches and their rows -----*- C++ -*-===//
//
// A train step with gradient accumulation runs the forward and backward of
// M micro-batches one after another (sprt_set_micro_batch(i, M) before the
// ops of micro-batch i) and then one gradient sync and update. The step's
// global batch is M times a micro-batch's: micro-batch i is global batch
// rows [i * Bg, (i + 1) * Bg), Bg = B x the batch axis' size being the
// micro-batch's global batch (the program's batch). The ops that draw from
// the global position of their batch rows (dropout masks, position ids of
// packed documents) use batchGeometry(), so micro-batch i draws what a
// one-micro-batch run over the whole step's batch draws for the same rows.
// Backend-neutral host code.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_MICROBATCH_H
#define SPRT_CORE_MICROBATCH_H

#include <cstdint>
#include <string>

namespace sprt {

/// The step's batch rows as an op on `localRows` rows of the batch split
/// over mesh axis `batchAxis` (-1: not split) sees them: the step's global
/// batch (all micro-batches) and the global row of this rank's first row.
struct BatchGeometry {
  int64_t globalRows = 0, offset = 0;
};

/// The geometry of the current micro-batch (sprt_set_micro_batch).
BatchGeometry batchGeometry(int64_t localRows, int32_t batchAxis);

/// What is wrong with sprt_set_micro_batch(index, count), or "".
std::string microBatchProblem(int64_t index, int64_t count);

/// The current micro-batch and their number in the step.
int64_t microBatchIndex();
int64_t microBatchCount();

} // namespace sprt

#endif // SPRT_CORE_MICROBATCH_H

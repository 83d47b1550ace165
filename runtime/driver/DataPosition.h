//===- DataPosition.h - where a resumed run reads on -------------*- C++
//-*-===//
//
// A checkpoint records the sequences its steps read (`sequences_consumed`);
// a resumed run reads on from the next one, whatever its own sequences per
// step (micro-batches, batch, data-parallel size), so no sequence is skipped
// or read twice. Where that cannot be exact (another data file or sequence
// length), the resume is refused with the reason.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_DATAPOSITION_H
#define SPRT_DRIVER_DATAPOSITION_H

#include "Batch.h"
#include "Checkpoint.h"

#include <string>

namespace sprt {

/// Points `batcher` at the sequence after the checkpoint `at` (read from
/// `checkpointDir`; the run reads `dataFile`, "" for the built-in data).
/// Returns "" or why the run cannot continue exactly; `warning` is set for
/// a checkpoint that does not record its sequences (the program's
/// sequences per step are assumed then).
std::string resumeDataPosition(ResumePoint &at, Batcher &batcher,
                               const std::string &checkpointDir,
                               const std::string &dataFile,
                               std::string &warning);

} // namespace sprt

#endif // SPRT_DRIVER_DATAPOSITION_H

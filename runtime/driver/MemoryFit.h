//===- MemoryFit.h - does the plan fit the device, before step 1 -*- C++
//-*-===//
//
// The compiler plans every byte a rank allocates (parameters, optimizer
// state, tokens, the arena with its workspaces); start-up compares that
// plan, summed over the ranks that share a device, with the device's free
// memory, so that a layout that cannot run fails in a second with what to
// change instead of after minutes of initialisation or mid-step.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_MEMORYFIT_H
#define SPRT_DRIVER_MEMORYFIT_H

#include "Model.h"

#include <cstdint>
#include <string>

namespace sprt {

/// One line saying why the plan does not fit, or "" when it does: this
/// rank's planned categories (its pipeline stage's), `needed` bytes for the
/// `ranksOnDevice` ranks that share the device, `freeBytes` free on it, and
/// the sp-compile flags that would lower the plan (those the program does
/// not use yet).
std::string memoryFitProblem(const Model &model, int64_t needed,
                             int ranksOnDevice, int64_t freeBytes,
                             const std::string &device);

/// Ends the job before anything large is allocated when the plan of the
/// ranks sharing this rank's device (sprt_device_id, summed over the node)
/// exceeds its free memory (sprt_device_memory). Collective over the world.
void checkMemoryFit(const Model &model);

} // namespace sprt

#endif // SPRT_DRIVER_MEMORYFIT_H

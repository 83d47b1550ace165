//===- Failure.h - one rank's failure ends every rank -----------*- C++ -*-===//
//
// A compiled program never leaves ranks waiting on one that has failed or
// stopped:
// - fatal() prints "error: rank R: ..." and ends the job. When every rank
//   fails together (a bad flag, a missing file: every rank checks the same
//   inputs) they meet on a communicator of their own and exit 1 cleanly, each
//   having printed its error; a rank that fails alone aborts the job after a
//   short grace period, so the others stop within seconds instead of waiting
//   in their next collective.
// - every operation of the communication layer (Comm.h) that does not
//   complete within the collective timeout (--timeout, default 600 s, as
//   NCCL's watchdog in PyTorch) aborts the job naming the rank, the
//   operation, the mesh axis and the step.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_FAILURE_H
#define SPRT_CORE_FAILURE_H

#include <cstdint>
#include <string>

namespace sprt {

/// Sets up failure reporting (every rank calls it once, right after
/// World::init).
void initFailure();

/// Seconds a collective may take before the job is aborted.
void setCollectiveTimeout(double seconds);

/// Prints the error for this rank and ends the job (see above).
[[noreturn]] void fatal(const std::string &message);

/// Whether `ok` holds on every rank (collective over the world).
bool allAgree(bool ok);

/// A barrier over the world, under the collective timeout.
void barrier();

} // namespace sprt

#endif // SPRT_CORE_FAILURE_H

//===- Failure.h - one rank's failure ends every rank -----------*- C++ -*-===//
//
// A compiled program never leaves ranks waiting on one that has failed or
// stopped:
// - fatal() prints "error: rank R: ..." and ends the job. When every rank
//   fails together (a bad flag, a missing file: every rank checks the same
//   inputs) they meet on a communicator of their own and exit 1 cleanly, each
//   having printed its error; a rank that fails alone aborts the job
//   (MPI_Abort) after a short grace period, so the others stop within
//   seconds instead of waiting in their next collective.
// - waitFor() completes every MPI operation of the runtime; one that does
//   not complete within the collective timeout (--timeout, default 600 s, as
//   NCCL's watchdog in PyTorch) aborts the job naming the rank, the
//   operation, the mesh axis and the step.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_FAILURE_H
#define SPRT_CORE_FAILURE_H

#include <cstdint>
#include <mpi.h>
#include <string>

namespace sprt {

/// Sets up failure agreement (collective: every rank calls it once, right
/// after MPI_Init).
void initFailure();

/// Seconds an MPI operation may take before the job is aborted.
void setCollectiveTimeout(double seconds);
double collectiveTimeout();

/// Prints the error for this rank and ends the job (see above).
[[noreturn]] void fatal(const std::string &message);

/// Waits for `request`; aborts the job when it takes longer than the
/// collective timeout. `what` names the operation, `axis` the mesh axis (-1:
/// every rank).
void waitFor(MPI_Request &request, const char *what, int32_t axis);

/// Whether `ok` holds on every rank (collective over the world).
bool allAgree(bool ok);

/// A barrier over the world, under the collective timeout.
void barrier();

} // namespace sprt

#endif // SPRT_CORE_FAILURE_H

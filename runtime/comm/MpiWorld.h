//===- MpiWorld.h - MPI under both implementations --------------*- C++ -*-===//
//
// The World of Comm.h is MPI in both implementations (NCCL exchanges its
// unique ids over it too); these are the pieces they share.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_COMM_MPIWORLD_H
#define SPRT_COMM_MPIWORLD_H

#include "Comm.h"

#include <cstdint>
#include <memory>
#include <mpi.h>
#include <string>

namespace sprt {

/// Completes `request`, or ends the job when it takes longer than the
/// timeout, naming `what` and `axis` (-1: the world) and this rank.
void waitMpi(MPI_Request &request, const char *what, int32_t axis);

/// The description of operation `what` on mesh axis `axis` (-1: the world)
/// the timeout messages give, e.g. "all_reduce over mesh axis 'dp' (2
/// ranks) at step 3" (World::setDescribe).
std::string describeOperation(const char *what, int32_t axis);

/// Prints "error: rank R: <message>; aborting the job" and ends the job.
[[noreturn]] void commFailure(const std::string &message);

/// The MPI communicator of mesh axis `axis`'s ranks, like World::split.
MPI_Comm splitMpi(int64_t color, int64_t key);

/// A Comm over MPI on `comm` (taken over). `staged`: each operation copies
/// its device buffers to host memory, runs on the copies and copies the
/// result back (device memory MPI cannot read); otherwise MPI reads and
/// writes the buffers themselves (the CPU backend's host memory).
std::unique_ptr<Comm> makeMpiComm(MPI_Comm comm, int32_t axis, bool staged);

} // namespace sprt

#endif // SPRT_COMM_MPIWORLD_H

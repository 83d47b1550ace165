//===- MpiSelect.cpp - the Comms of a program without NCCL ----------------===//
//
// The CPU backend's ranks communicate over MPI on their (host) buffers;
// --comm mpi-staged routes every operation through host copies instead,
// the path a GPU backend takes with --comm mpi, so that path is exercised
// on CPU ranks too.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "MpiWorld.h"

using namespace sprt;

static bool staged = false;

const char *World::name() { return staged ? "mpi-staged" : "mpi"; }

std::string World::useComm(const std::string &kind) {
  if (kind.empty() || kind == "mpi" || kind == "mpi-staged") {
    staged = kind == "mpi-staged";
    return {};
  }
  if (kind == "nccl")
    return "--comm nccl: this program communicates over MPI (it was not "
           "linked with NCCL: compile it with --target cuda); --comm takes "
           "mpi or mpi-staged here";
  return "--comm: unknown '" + kind + "' (nccl, mpi or mpi-staged)";
}

std::unique_ptr<Comm> World::split(int64_t color, int64_t key, int32_t axis) {
  return makeMpiComm(splitMpi(color, key), axis, staged);
}

// MPI's operations are waited for by the host, under the timeout.
void World::launchWatched(const char *, const std::function<void()> &launch) {
  launch();
}

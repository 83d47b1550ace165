//===- Failure.cpp - one rank's failure ends every rank -------------------===//

#include "Failure.h"
#include "Mesh.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <sched.h>

using namespace sprt;
using Clock = std::chrono::steady_clock;

namespace {
MPI_Comm failComm = MPI_COMM_NULL;
double timeoutSeconds = 600.0;
/// How long a failing rank waits for the others to fail too before it
/// aborts the job.
constexpr double kGraceSeconds = 2.0;

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Tests `request` until it completes (true) or `seconds` pass (false).
/// Spins briefly, then yields the core: ranks are often oversubscribed.
bool testUntil(MPI_Request &request, double seconds) {
  Clock::time_point start = Clock::now();
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done)
      return true;
    if (spins >= 64)
      sched_yield();
    if (spins % 64 == 0 && since(start) > seconds)
      return false;
  }
}

std::string axisName(int32_t axis) {
  const Mesh &m = mesh();
  if (axis < 0 || size_t(axis) >= m.sizes.size())
    return "every rank";
  std::string name = size_t(axis) < m.names.size()
                         ? "'" + m.names[size_t(axis)] + "'"
                         : std::to_string(axis);
  return "mesh axis " + name + " (" + std::to_string(m.sizes[size_t(axis)]) +
         " ranks)";
}
} // namespace

/// An exception nothing caught (std::bad_alloc in a kernel, say): one line
/// naming it, then the job ends like any failure of one rank.
[[noreturn]] static void onTerminate() {
  std::string what = "an unknown exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc &) {
      what = "out of memory (std::bad_alloc)";
    } catch (const std::exception &x) {
      what = x.what();
    } catch (...) {
    }
  }
  std::fprintf(stderr, "error: rank %d: internal error: %s; aborting the job\n",
               worldRank(), what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void sprt::initFailure() {
  if (failComm == MPI_COMM_NULL)
    MPI_Comm_dup(MPI_COMM_WORLD, &failComm);
  std::set_terminate(onTerminate);
}

void sprt::setCollectiveTimeout(double seconds) { timeoutSeconds = seconds; }
double sprt::collectiveTimeout() { return timeoutSeconds; }

void sprt::fatal(const std::string &message) {
  std::fprintf(stderr, "error: rank %d: %s\n", worldRank(), message.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) {
    bool together = false;
    if (failComm != MPI_COMM_NULL) {
      MPI_Request request;
      MPI_Ibarrier(failComm, &request);
      together = testUntil(request, kGraceSeconds);
    }
    if (!together) {
      std::fprintf(stderr,
                   "error: rank %d: the other ranks did not fail; aborting "
                   "the job\n",
                   worldRank());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Finalize();
  std::exit(1);
}

void sprt::waitFor(MPI_Request &request, const char *what, int32_t axis) {
  if (testUntil(request, timeoutSeconds))
    return;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
  std::fprintf(stderr,
               "error: rank %d: %s over %s at step %lld did not complete "
               "within %s s (--timeout): another rank stopped or failed; "
               "aborting the job\n",
               worldRank(), what, axisName(axis).c_str(),
               (long long)mesh().step, seconds);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

bool sprt::allAgree(bool ok) {
  int mine = ok, every = 0;
  MPI_Request request;
  MPI_Iallreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
  waitFor(request, "all_reduce", -1);
  return every != 0;
}

void sprt::barrier() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  waitFor(request, "barrier", -1);
}

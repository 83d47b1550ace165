//===- MpiWorld.cpp - the world's control operations over MPI -------------===//
//
// Every operation is non-blocking MPI completed by waitMpi, which tests it
// until it completes or the collective timeout passes (then the job is
// aborted, naming the operation): a rank never waits forever on one that
// stopped.
//
//===----------------------------------------------------------------------===//

#include "MpiWorld.h"

#include "Comm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sched.h>
#include <utility>

using namespace sprt;
using Clock = std::chrono::steady_clock;

CommRequest::~CommRequest() = default;
Comm::~Comm() = default;

namespace {
MPI_Comm failComm = MPI_COMM_NULL;
double timeoutSeconds = 600.0;
bool spinWait = false;

std::string axisIndex(const char *what, int32_t axis) {
  return std::string(what) + " over " +
         (axis < 0 ? std::string("every rank")
                   : "mesh axis " + std::to_string(axis));
}
DescribeFn describe = axisIndex;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Tests `request` until it completes (true) or `seconds` pass (false).
/// Spins briefly, then yields the core (ranks are often oversubscribed),
/// unless World::setSpinWait.
bool testUntil(MPI_Request &request, double seconds) {
  Clock::time_point start = Clock::now();
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done)
      return true;
    if (spins >= 64 && !spinWait)
      sched_yield();
    if (spins % 64 == 0 && since(start) > seconds)
      return false;
  }
}
} // namespace

void sprt::waitMpi(MPI_Request &request, const char *what, int32_t axis) {
  if (testUntil(request, timeoutSeconds))
    return;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
  commFailure(describe(what, axis) + " did not complete within " + seconds +
              " s (--timeout): another rank stopped or failed");
}

std::string sprt::describeOperation(const char *what, int32_t axis) {
  return describe(what, axis);
}

void sprt::commFailure(const std::string &message) {
  std::fprintf(stderr, "error: rank %d: %s; aborting the job\n", World::rank(),
               message.c_str());
  std::fflush(stderr);
  World::abort();
}

MPI_Comm sprt::splitMpi(int64_t color, int64_t key) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, int(color), int(key), &comm);
  return comm;
}

/// This process's rank, kept by init(): the NCCL watchdog's thread names it
/// without calling MPI, which runs single-threaded.
static int worldRank = -1;

void World::init(int *argc, char ***argv) {
  int started = 0;
  MPI_Initialized(&started);
  if (!started)
    MPI_Init(argc, argv);
  if (failComm == MPI_COMM_NULL)
    MPI_Comm_dup(MPI_COMM_WORLD, &failComm);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
}

void World::finalize() {
  if (failComm != MPI_COMM_NULL)
    MPI_Comm_free(&failComm);
  MPI_Finalize();
}

int World::rank() {
  if (worldRank >= 0)
    return worldRank;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int World::size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// This rank's index among the ranks of its node, and their number.
static std::pair<int, int> nodeRankAndSize() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, World::rank(),
                      MPI_INFO_NULL, &node);
  int r = 0, n = 1;
  MPI_Comm_rank(node, &r);
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return {r, n};
}

std::pair<int64_t, int> World::sumOnNode(int64_t value, int64_t key) {
  MPI_Comm node, group;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, World::rank(),
                      MPI_INFO_NULL, &node);
  // Keys are small (device ordinals): a color is an int.
  MPI_Comm_split(node, int(key & 0x3fffffff), 0, &group);
  long long mine = value, sum = 0;
  int n = 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, group);
  MPI_Comm_size(group, &n);
  MPI_Comm_free(&group);
  MPI_Comm_free(&node);
  return {int64_t(sum), n};
}

int World::localRank() { return nodeRankAndSize().first; }
int World::localSize() { return nodeRankAndSize().second; }

void World::setTimeout(double seconds) { timeoutSeconds = seconds; }
void World::setSpinWait(bool spin) { spinWait = spin; }
double World::timeout() { return timeoutSeconds; }
void World::setDescribe(DescribeFn fn) { describe = fn ? fn : axisIndex; }

bool World::allAgree(bool ok) {
  int mine = ok, every = 0;
  MPI_Request request;
  MPI_Iallreduce(&mine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
  waitMpi(request, "all_reduce", -1);
  return every != 0;
}

void World::barrier() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  waitMpi(request, "barrier", -1);
}

// MPI counts are ints: the blocking control operations go in pieces of at
// most kMaxCount elements, so any size works.
static constexpr int64_t kMaxCount = int64_t(1) << 30;

void World::reduceSumToRoot(float *data, int64_t n) {
  for (int64_t at = 0; at < n; at += kMaxCount) {
    int count = int(std::min(kMaxCount, n - at));
    MPI_Request request;
    MPI_Ireduce(World::rank() == 0 ? MPI_IN_PLACE : data + at, data + at, count,
                MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD, &request);
    waitMpi(request, "reduce", -1);
  }
}

void World::broadcast(void *data, int64_t bytes, int root) {
  for (int64_t at = 0; at < bytes; at += kMaxCount) {
    int count = int(std::min(kMaxCount, bytes - at));
    MPI_Request request;
    MPI_Ibcast(static_cast<char *>(data) + at, count, MPI_BYTE, root,
               MPI_COMM_WORLD, &request);
    waitMpi(request, "broadcast", -1);
  }
}

bool World::failTogether(double seconds) {
  if (failComm == MPI_COMM_NULL)
    return false;
  MPI_Request request;
  MPI_Ibarrier(failComm, &request);
  return testUntil(request, seconds);
}

void World::abort() {
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

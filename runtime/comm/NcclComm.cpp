//===- NcclComm.cpp - the communication layer over NCCL -------------------===//
//
// One NCCL communicator per mesh axis: the axis's rank 0 draws a unique id
// and broadcasts it over an MPI communicator of the axis's ranks (the
// device of each rank chosen before, by sprt_device_init). Every operation
// runs on one communication stream shared by the axes (so that the ranks
// issue them in the same order):
//   start: record an event on the compute stream, make the communication
//          stream wait for it, issue the NCCL call there, record `done`;
//   wait:  the compute stream waits for `done` (the host does not).
// Host control (World) is MPI, as in sprt_comm_mpi (MpiWorld.cpp).
//
// --timeout: every operation is watched (Watchdog.h) from before its NCCL
// call (which may block the host: ncclCommInitRank until every rank joins,
// a first transfer with a peer while NCCL connects) until an event recorded
// after it completes; one still incomplete --timeout seconds after it was
// issued ends the job with the message an MPI wait past the timeout gives
// (rank, operation, axis, step). A step captured as a CUDA graph records its
// operations without issuing them: each replay is watched whole
// (World::launchWatched), and an error while capturing fails the capture
// (sprt_graph_note_error), not the job.
//
// A send must not wait for its recv (Comm.h's callers: sprt_send), but an
// ncclSend holds the communication stream until the peer's matching
// ncclRecv runs, and an ncclRecv until the peer's send runs, every later
// operation queuing behind it: two ranks that both send, then receive,
// would each wait for the other's recv, and ring attention's ranks, which
// each post their receives before their sends, would each wait for a send
// queued behind the peer's receives. So point-to-point operations are not
// issued when started: they wait in this communicator's queue and are
// issued together, in one NCCL group (none waiting for another to start),
// by flush() (Comm.h), the first wait() of one of them, or the
// communicator's next collective, before it and not in its group (NCCL
// runs a group's collectives before its point-to-point operations: a peer
// whose collective follows the recv of such a send would wait forever).
// Run on the CUDA emulator's NCCL (runtime/cuda-emu/lib/Nccl.cpp,
// test/e2e/cuda/nccl-emu.test); not on a GPU.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "MpiWorld.h"
#include "Watchdog.h"

#include "sprt/device.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

using namespace sprt;

namespace {
/// An error while a step is captured fails the capture (the step then runs
/// eagerly, where an error that remains ends the job); otherwise it ends
/// the job.
void fail(const std::string &message) {
  if (!sprt_graph_note_error(message.c_str()))
    commFailure(message);
}

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    fail(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e) +
         " (" + cudaGetErrorName(e) + ")");
}

void check(ncclResult_t r, const char *what) {
  if (r == ncclSuccess)
    return;
  // NCCL's own account of it (its argument is unused: any communicator).
  const char *detail = ncclGetLastError(nullptr);
  fail(std::string("NCCL error in ") + what + ": " + ncclGetErrorString(r) +
       (detail && *detail ? std::string(" (") + detail + ")" : std::string()));
}

/// NCCL's type of a reduction's elements. bf16 is ncclBfloat16 (NCCL >=
/// 2.10, built with CUDA's bf16 types): NCCL sums it as it is, adding two
/// values at each step of its algorithm and storing each partial sum as
/// bf16 (NVIDIA/nccl#1026: no f32 accumulation across steps), in the order
/// of the algorithm it picks (ring: the running sum plus one rank's value
/// per step; tree: subtree sums): one bf16 rounding per addition, as the
/// MPI layer's dtype::addBf16, in another order (the emulator's: rank order).
ncclDataType_t ncclType(ElemType type) {
  return type == ElemType::Bf16 ? ncclBfloat16 : ncclFloat32;
}

cudaStream_t computeStream() {
  return reinterpret_cast<cudaStream_t>(sprt_current_stream());
}

/// The communication stream, created with the first communicator and
/// destroyed with the last.
cudaStream_t commStream = nullptr;
int commStreamUsers = 0;

/// Every live communicator and the watchdog of their operations, created
/// with the first and stopped with the last.
std::mutex commsMutex;
std::vector<ncclComm_t> liveComms;
std::unique_ptr<Watchdog> watchdog;

/// Ends the job for an operation past the timeout, reported as waitMpi
/// does. On the watchdog's thread, so without MPI (initialised
/// single-threaded; the main thread may be inside it): the process exits,
/// which ends its CUDA context and the operations spinning there, and
/// mpirun ends the job for a rank that exits without MPI_Finalize. The
/// communicators are not aborted first: ncclCommAbort can itself hang while
/// a peer's operations are pending (NVIDIA/nccl#863), and the message must
/// come out.
void expired(const std::string &what) {
  std::fprintf(stderr,
               "error: rank %d: %s did not complete within %g s (--timeout): "
               "another rank stopped or failed; aborting the job\n",
               World::rank(), what.c_str(), World::timeout());
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(1);
}

/// NCCL's asynchronous error on `comm` (every live communicator where
/// null), as "what (NCCL's account)", or "": a network or proxy failure
/// leaves NCCL's kernels spinning, and the operation would otherwise end the
/// job only at --timeout, blamed on another rank. From the watchdog's
/// thread, as PyTorch's watchdog polls it; only communicators still live
/// (~NcclComm removes one before destroying it).
std::string asyncError(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(commsMutex);
  for (ncclComm_t c : liveComms) {
    if (comm && c != comm)
      continue;
    ncclResult_t r = ncclSuccess;
    if (ncclCommGetAsyncError(c, &r) != ncclSuccess || r == ncclSuccess ||
        r == ncclInProgress)
      continue;
    const char *detail = ncclGetLastError(c);
    return std::string(ncclGetErrorString(r)) +
           (detail && *detail ? std::string(" (") + detail + ")"
                              : std::string());
  }
  return {};
}

/// Ends the job for an operation that NCCL failed asynchronously: as
/// expired(), without waiting for the timeout.
[[noreturn]] void failedAsync(const std::string &what,
                              const std::string &error) {
  std::fprintf(stderr,
               "error: rank %d: %s failed: NCCL reported an asynchronous "
               "error: %s; aborting the job\n",
               World::rank(), what.c_str(), error.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(1);
}

/// Fails (every rank of `ranks` alike) where two of them share a GPU:
/// NCCL refuses one communicator with two ranks on one device
/// (ncclInvalidUsage, "Duplicate GPU detected") and says no more.
void checkDistinctDevices(MPI_Comm ranks, int32_t axis) {
  int size = 0;
  MPI_Comm_size(ranks, &size);
  const int64_t mine = sprt_device_key();
  std::vector<int64_t> keys(size_t(size), 0);
  MPI_Allgather(&mine, 1, MPI_INT64_T, keys.data(), 1, MPI_INT64_T, ranks);
  for (int a = 0; a < size; ++a)
    for (int b = a + 1; b < size; ++b)
      if (keys[size_t(a)] == keys[size_t(b)])
        commFailure(describeOperation("the NCCL communicator", axis) +
                    ": its ranks " + std::to_string(a) + " and " +
                    std::to_string(b) +
                    " are on the same GPU, which NCCL refuses; give each "
                    "rank its own GPU (one rank per GPU, or "
                    "CUDA_VISIBLE_DEVICES), or run with --comm mpi (several "
                    "ranks on one GPU, communication staged through the "
                    "host)");
}

/// Whether the compute stream's work is being captured (recorded, not run).
bool capturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(computeStream(), &status) == cudaSuccess &&
         status != cudaStreamCaptureStatusNone;
}

/// An operation watched from before its NCCL call, which may block the
/// host itself (ncclCommInitRank until every rank of the communicator joins;
/// a group's first transfer with a peer while NCCL connects to it), until
/// the event recorded after it completes.
struct Watched {
  std::atomic<int> state{0}; // 0: in the call; 1: `event` recorded; 2: done
  cudaEvent_t event = nullptr;
};

/// Starts watching an operation about to be issued on `comm` (null: a
/// replay, or a communicator being created: every live one), or nothing
/// while a step is captured (an event recorded then is part of the graph
/// and cannot be queried: the replay is watched whole,
/// World::launchWatched). Until it completes, an asynchronous NCCL error
/// ends the job at once.
std::shared_ptr<Watched> watchFromNow(const char *what, int32_t axis,
                                      ncclComm_t comm) {
  if (!watchdog || capturing())
    return nullptr;
  auto w = std::make_shared<Watched>();
  int device = 0;
  check(cudaGetDevice(&device), what);
  std::string description = describeOperation(what, axis);
  watchdog->watch(description, [w, device, comm, description] {
    const int state = w->state.load(std::memory_order_acquire);
    if (state == 2)
      return true;
    if (state == 1) {
      cudaSetDevice(device);
      if (cudaEventQuery(w->event) != cudaErrorNotReady) {
        cudaEventDestroy(w->event);
        // Another error is the stream's: the next synchronisation reports
        // it.
        return true;
      }
    }
    std::string error = asyncError(comm);
    if (!error.empty())
      failedAsync(description, error);
    return false;
  });
  return w;
}

/// The call `w` watches returned: its work on `stream` is watched until it
/// completes (no stream: the call was all of it).
void issued(const std::shared_ptr<Watched> &w, const char *what,
            cudaStream_t stream) {
  if (!w)
    return;
  if (stream) {
    check(cudaEventCreateWithFlags(&w->event, cudaEventDisableTiming), what);
    check(cudaEventRecord(w->event, stream), what);
  }
  w->state.store(stream ? 1 : 2, std::memory_order_release);
}

class NcclRequest : public CommRequest {
public:
  NcclRequest(cudaEvent_t done, const char *what) : done(done), what(what) {}
  ~NcclRequest() override {
    // Later work is ordered after the operation even if nobody waited.
    if (done)
      wait();
  }
  void wait() override {
    check(cudaStreamWaitEvent(computeStream(), done, 0), what);
    check(cudaEventDestroy(done), what);
    done = nullptr;
  }

private:
  cudaEvent_t done;
  const char *what;
};

class NcclComm;

/// Where a deferred send's or recv's completion is recorded once it is
/// issued.
struct P2pSlot {
  cudaEvent_t done = nullptr;
};

/// A send or recv waiting in its communicator's queue, then issued.
class NcclP2pRequest : public CommRequest {
public:
  NcclP2pRequest(NcclComm &comm, std::shared_ptr<P2pSlot> slot)
      : comm(&comm), slot(std::move(slot)) {}
  ~NcclP2pRequest() override {
    if (comm)
      wait();
  }
  void wait() override;

private:
  NcclComm *comm;
  std::shared_ptr<P2pSlot> slot;
};

class NcclComm : public Comm {
public:
  NcclComm(int64_t color, int64_t key, int32_t meshAxis) : axis(meshAxis) {
    MPI_Comm ranks = splitMpi(color, key);
    MPI_Comm_rank(ranks, &myRank);
    MPI_Comm_size(ranks, &mySize);
    checkDistinctDevices(ranks, meshAxis);
    ncclUniqueId id;
    if (myRank == 0)
      check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Request request;
    MPI_Ibcast(&id, int(sizeof id), MPI_BYTE, 0, ranks, &request);
    waitMpi(request, "broadcast of the NCCL id", -1);
    MPI_Comm_free(&ranks);
    {
      std::lock_guard<std::mutex> lock(commsMutex);
      if (!watchdog)
        watchdog = std::make_unique<Watchdog>(
            World::timeout(), std::min(1.0, World::timeout() / 10), expired);
    }
    // Under the watchdog: a rank that never joins would hold it forever.
    std::shared_ptr<Watched> joining =
        watchFromNow("ncclCommInitRank", axis, nullptr);
    check(ncclCommInitRank(&comm, mySize, id, myRank), "ncclCommInitRank");
    issued(joining, "ncclCommInitRank", nullptr);
    if (commStreamUsers++ == 0)
      check(cudaStreamCreateWithFlags(&commStream, cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags");
    std::lock_guard<std::mutex> lock(commsMutex);
    liveComms.push_back(comm);
  }
  ~NcclComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) // a mesh left at exit: the process is ending
      return;
    check(cudaStreamSynchronize(commStream), "cudaStreamSynchronize");
    std::unique_ptr<Watchdog> last;
    {
      std::lock_guard<std::mutex> lock(commsMutex);
      liveComms.erase(std::remove(liveComms.begin(), liveComms.end(), comm),
                      liveComms.end());
      if (liveComms.empty())
        last = std::move(watchdog);
    }
    // Joined outside the lock: an operation expiring now takes it.
    last.reset();
    check(ncclCommDestroy(comm), "ncclCommDestroy");
    if (--commStreamUsers == 0) {
      check(cudaStreamDestroy(commStream), "cudaStreamDestroy");
      commStream = nullptr;
    }
  }

  int rank() const override { return myRank; }
  int size() const override { return mySize; }

  CommHandle startAllGather(const void *in, void *out, int64_t bytes) override {
    return run("ncclAllGather", [&] {
      return ncclAllGather(in, out, size_t(bytes), ncclInt8, comm, commStream);
    });
  }

  CommHandle startReduceScatter(const void *in, void *out, int64_t count,
                                ElemType type) override {
    return run("ncclReduceScatter", [&] {
      return ncclReduceScatter(in, out, size_t(count), ncclType(type), ncclSum,
                               comm, commStream);
    });
  }

  CommHandle startAllReduce(const void *in, void *out, int64_t n, ReduceOp op,
                            ElemType type) override {
    if (type == ElemType::Bf16 && op != ReduceOp::Sum)
      throw std::invalid_argument("sprt: a bf16 all_reduce sums only");
    ncclRedOp_t ncclOp = op == ReduceOp::Max   ? ncclMax
                         : op == ReduceOp::Min ? ncclMin
                                               : ncclSum;
    return run("ncclAllReduce", [&] {
      return ncclAllReduce(in, out, size_t(n), ncclType(type), ncclOp, comm,
                           commStream);
    });
  }

  CommHandle startAllToAll(const void *in, void *out, int64_t bytes) override {
    return run("all_to_all (ncclSend / ncclRecv)", [&] {
      ncclResult_t r = ncclGroupStart();
      for (int p = 0; p < mySize && r == ncclSuccess; ++p) {
        r = ncclSend(static_cast<const char *>(in) + p * bytes, size_t(bytes),
                     ncclInt8, p, comm, commStream);
        if (r == ncclSuccess)
          r = ncclRecv(static_cast<char *>(out) + p * bytes, size_t(bytes),
                       ncclInt8, p, comm, commStream);
      }
      ncclResult_t end = ncclGroupEnd();
      return r == ncclSuccess ? end : r;
    });
  }

  CommHandle startSend(const void *in, int64_t bytes, int peer) override {
    // Issued by flush(), the first wait of a queued operation or the next
    // collective: the compute stream's work before now, which wrote `in`,
    // precedes that.
    return queue(false, in, nullptr, bytes, peer);
  }

  CommHandle startRecv(void *out, int64_t bytes, int peer) override {
    // Likewise: in one group with the sends started around it.
    return queue(true, nullptr, out, bytes, peer);
  }

  void flush() override {
    if (queued.empty())
      return;
    afterCompute("ncclSend / ncclRecv");
    issueQueued();
  }

private:
  /// Orders the communication stream's next work after the compute
  /// stream's work so far.
  void afterCompute(const char *what) {
    cudaEvent_t ready = nullptr;
    check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), what);
    check(cudaEventRecord(ready, computeStream()), what);
    check(cudaStreamWaitEvent(commStream, ready, 0), what);
    // Released once recorded work completes.
    check(cudaEventDestroy(ready), what);
  }

  /// Issues the queued sends and receives in one group (none waits for
  /// another to start), each request's completion recorded after it.
  void issueQueued() {
    std::vector<Queued> p2p;
    p2p.swap(queued);
    if (p2p.empty())
      return;
    const char *what = "ncclSend / ncclRecv";
    std::shared_ptr<Watched> w = watchFromNow(what, axis, comm);
    check(ncclGroupStart(), what);
    for (const Queued &q : p2p)
      if (q.recv)
        check(ncclRecv(q.out, size_t(q.bytes), ncclInt8, q.peer, comm,
                       commStream),
              "ncclRecv");
      else
        check(
            ncclSend(q.in, size_t(q.bytes), ncclInt8, q.peer, comm, commStream),
            "ncclSend");
    check(ncclGroupEnd(), what);
    issued(w, what, commStream);
    for (const Queued &q : p2p) {
      check(cudaEventCreateWithFlags(&q.slot->done, cudaEventDisableTiming),
            what);
      check(cudaEventRecord(q.slot->done, commStream), what);
    }
  }

  /// Orders `issue` (the NCCL call on the communication stream) after the
  /// work on the compute stream so far, and returns its request. The queued
  /// sends and receives go first, in a group of their own: in one group with
  /// a collective, NCCL would run the collective first, and a peer whose
  /// collective follows the recv of one of these sends would never get it.
  template <typename Issue> CommHandle run(const char *what, Issue issue) {
    afterCompute(what);
    issueQueued();
    std::shared_ptr<Watched> w = watchFromNow(what, axis, comm);
    check(issue(), what);
    cudaEvent_t done = nullptr;
    check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), what);
    check(cudaEventRecord(done, commStream), what);
    issued(w, what, commStream);
    return std::make_unique<NcclRequest>(done, what);
  }

  /// A send (of `in`) or recv (into `out`) started and not yet issued.
  struct Queued {
    bool recv;
    const void *in;
    void *out;
    int64_t bytes;
    int peer;
    std::shared_ptr<P2pSlot> slot;
  };

  CommHandle queue(bool recv, const void *in, void *out, int64_t bytes,
                   int peer) {
    auto slot = std::make_shared<P2pSlot>();
    queued.push_back({recv, in, out, bytes, peer, slot});
    return std::make_unique<NcclP2pRequest>(*this, slot);
  }
  std::vector<Queued> queued;
  ncclComm_t comm = nullptr;
  int32_t axis;
  int myRank = 0, mySize = 1;
};
void NcclP2pRequest::wait() {
  if (!slot->done)
    comm->flush();
  check(cudaStreamWaitEvent(computeStream(), slot->done, 0),
        "ncclSend / ncclRecv");
  check(cudaEventDestroy(slot->done), "ncclSend / ncclRecv");
  slot->done = nullptr;
  comm = nullptr;
}
} // namespace

/// NCCL (the default), or MPI through host staging (--comm mpi): several
/// ranks may then share one GPU, which NCCL refuses.
static bool overMpi = false;

const char *World::name() { return overMpi ? "mpi-staged" : "nccl"; }

std::string World::useComm(const std::string &kind) {
  if (kind.empty() || kind == "nccl" || kind == "mpi" || kind == "mpi-staged") {
    overMpi = kind == "mpi" || kind == "mpi-staged";
    return {};
  }
  return "--comm: unknown '" + kind + "' (nccl, mpi or mpi-staged)";
}

std::unique_ptr<Comm> World::split(int64_t color, int64_t key, int32_t axis) {
  if (overMpi)
    return makeMpiComm(splitMpi(color, key), axis, /*staged=*/true);
  return std::make_unique<NcclComm>(color, key, axis);
}

void World::launchWatched(const char *what,
                          const std::function<void()> &launch) {
  std::shared_ptr<Watched> w =
      overMpi ? nullptr : watchFromNow(what, -1, nullptr);
  launch();
  issued(w, what, computeStream());
}

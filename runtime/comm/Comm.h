//===- Comm.h - the communication layer's interface -------------*- C++ -*-===//
//
// What the backend-neutral core needs to talk to other ranks, with two
// implementations: MPI (library sprt_comm_mpi, CPU ranks) and NCCL
// (sprt_comm_nccl, one GPU per rank). A program links exactly one.
//
// - World: every rank. Host-side control (start-up, agreement on a flag, a
//   barrier, a reduction of host data to rank 0, a broadcast, ending the job
//   on failure), over MPI in both implementations, each operation under the
//   collective timeout. The mesh splits the world into one Comm per axis.
// - Comm: the ranks of one mesh axis. Data collectives on contiguous DEVICE
//   buffers, each started with start*() and finished with the returned
//   request's wait(), or blocking (start, then wait). Work issued on the
//   backend's compute stream (sprt_current_stream) before a start is seen by
//   the operation; after wait() the result is seen by work issued on the
//   compute stream. MPI completes the operation on the host in wait(); NCCL
//   runs it on a communication stream and wait() makes the compute stream
//   wait for it, without blocking the host.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_COMM_COMM_H
#define SPRT_COMM_COMM_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace sprt {

enum class ReduceOp { Sum, Max, Min };

/// The element type of a reduction's buffers. A bf16 reduction adds each
/// pair of values in f32 and rounds the sum to bf16 (sprt/dtype.h), and
/// supports ReduceOp::Sum only.
enum class ElemType { F32, Bf16 };

/// The bytes of one element of `type`.
inline int64_t elemBytes(ElemType type) {
  return type == ElemType::Bf16 ? 2 : 4;
}

/// A started operation.
class CommRequest {
public:
  virtual ~CommRequest();
  /// Makes the result visible to work issued later on the compute stream.
  /// Called once.
  virtual void wait() = 0;
};
using CommHandle = std::unique_ptr<CommRequest>;

/// The ranks of one mesh axis. Sizes are per rank; pointers are device
/// memory.
class Comm {
public:
  virtual ~Comm();
  /// This rank's index on the axis, and the number of ranks.
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// out = every rank's `bytes` bytes of `in`, in rank order (size() *
  /// bytes). In place when in == out + rank() * bytes.
  virtual CommHandle startAllGather(const void *in, void *out,
                                    int64_t bytes) = 0;
  /// out = block rank() of the sum over the ranks of `in`, which holds
  /// size() blocks of `count` elements of `type`.
  virtual CommHandle startReduceScatter(const void *in, void *out,
                                        int64_t count, ElemType type) = 0;
  /// out = the reduction over the ranks of `in`, n elements of `type` (in
  /// may be out).
  virtual CommHandle startAllReduce(const void *in, void *out, int64_t n,
                                    ReduceOp op, ElemType type) = 0;
  /// Block j of `in` (size() blocks of `bytes` bytes) goes to rank j; block
  /// r of `out` comes from rank r.
  virtual CommHandle startAllToAll(const void *in, void *out,
                                   int64_t bytes) = 0;
  /// Point-to-point with rank `peer` of the axis.
  virtual CommHandle startSend(const void *in, int64_t bytes, int peer) = 0;
  virtual CommHandle startRecv(void *out, int64_t bytes, int peer) = 0;
  /// Issues the point-to-point operations started so far, all together,
  /// where a backend defers them (NCCL issues the sends and receives of an
  /// exchange in one group, at the next collective or the first wait): a
  /// caller that computes before it waits calls it so the transfers move
  /// meanwhile. Nothing where they start at once (MPI).
  virtual void flush() {}

  void allGather(const void *in, void *out, int64_t bytes) {
    startAllGather(in, out, bytes)->wait();
  }
  void reduceScatter(const void *in, void *out, int64_t count, ElemType type) {
    startReduceScatter(in, out, count, type)->wait();
  }
  void allReduce(const void *in, void *out, int64_t n, ReduceOp op,
                 ElemType type) {
    startAllReduce(in, out, n, op, type)->wait();
  }
  void allToAll(const void *in, void *out, int64_t bytes) {
    startAllToAll(in, out, bytes)->wait();
  }
  void send(const void *in, int64_t bytes, int peer) {
    startSend(in, bytes, peer)->wait();
  }
  void recv(void *out, int64_t bytes, int peer) {
    startRecv(out, bytes, peer)->wait();
  }
};

/// Names a control or data operation that did not complete in time, e.g.
/// "all_gather over mesh axis 'tp' (2 ranks) at step 3"; `axis` is the mesh
/// axis of the Comm, -1 for the world.
using DescribeFn = std::string (*)(const char *what, int32_t axis);

/// Every rank of the job. Host memory only.
class World {
public:
  /// Starts the job's communication (MPI_Init unless a caller did) and the
  /// failure agreement. Every rank calls it once, first.
  static void init(int *argc, char ***argv);
  /// Ends it (after every Comm is gone).
  static void finalize();

  /// How the data collectives of the Comms split() makes travel: "nccl",
  /// "mpi" or "mpi-staged" (MPI on host copies of the device buffers).
  static const char *name();
  /// Chooses it before the mesh is set up (--comm): "" keeps the library's
  /// default (nccl where NCCL is linked, else mpi); "mpi" on a GPU backend
  /// stages through host memory (several ranks may then share one GPU);
  /// "mpi-staged" stages on any backend. Returns "" or why `kind` cannot
  /// be used.
  static std::string useComm(const std::string &kind);
  static int rank();
  static int size();
  /// This rank's index among the ranks on its node (selects its device).
  static int localRank();
  /// The number of ranks on this rank's node.
  static int localSize();
  /// The sum of `value` over the ranks of this rank's node that give the
  /// same `key`, and their number (collective over the world).
  static std::pair<int64_t, int> sumOnNode(int64_t value, int64_t key);

  /// The Comm of the ranks with the same `color`, ordered by `key`, for
  /// mesh axis `axis` (collective over the world).
  static std::unique_ptr<Comm> split(int64_t color, int64_t key, int32_t axis);

  /// Seconds an operation may take before the job is aborted, and what the
  /// message of that abort names (the default: the axis index).
  static void setTimeout(double seconds);
  static double timeout();
  /// Whether a rank waiting on an MPI request spins on its core (true) or
  /// yields it after a short spin (false, the default: ranks are often
  /// more than the cores). Spinning makes each rank of an oversubscribed
  /// machine a device of constant speed, one that an idle neighbour does
  /// not speed up (bench/plan-vs-measured.sh).
  static void setSpinWait(bool spin);
  static void setDescribe(DescribeFn describe);
  /// Calls `launch` (which issues a replayed step, whose collectives were
  /// captured rather than issued one by one) and watches it from before the
  /// call (which may itself block: a full launch queue, the emulator's
  /// NCCL) until the compute stream's work so far completes: still
  /// incomplete --timeout seconds later, it ends the job as an operation
  /// past the timeout does. Only calls `launch` where the host waits for
  /// the collectives (MPI).
  static void launchWatched(const char *what,
                            const std::function<void()> &launch);

  /// Control collectives over every rank, under the timeout.
  /// Whether `ok` holds on every rank.
  static bool allAgree(bool ok);
  static void barrier();
  /// data (n f32 on every rank) = on rank 0, the sum over the ranks.
  static void reduceSumToRoot(float *data, int64_t n);
  /// data (bytes on every rank) = rank root's.
  static void broadcast(void *data, int64_t bytes, int root);

  /// Whether every rank reaches this call within `seconds` (they all failed
  /// together), on a communicator of its own.
  static bool failTogether(double seconds);
  /// Ends every rank of the job now.
  [[noreturn]] static void abort();
};

} // namespace sprt

#endif // SPRT_COMM_COMM_H

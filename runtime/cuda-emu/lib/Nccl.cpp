//===- Nccl.cpp - the NCCL calls the backend makes, over MPI --------------===//
//
// Each process is one rank with its own emulated GPU; an NCCL communicator
// is an MPI communicator, and an NCCL operation is stream work like a
// kernel's: it runs when its stream reaches it (here: when issued), or is
// recorded while the stream is captured and runs on each replay, so a step
// captured with its collectives replays them. Reductions sum the ranks'
// values in rank order, each addition rounded to the element type (bf16:
// one rounding per addition, as NCCL's ring does; its order differs).
// Point-to-point operations between ncclGroupStart and ncclGroupEnd are
// posted together (none waits for another to start), as NCCL's group does.
// Buffers must be device memory (cudaMalloc's), as NCCL's must. And what
// NCCL leaves to the caller is checked: the ranks of a communicator must
// make the same collective call (operation, count, type, reduction), and a
// recv must get as many bytes as its send gives; otherwise NCCL hangs or
// mixes up the ranks' data, and the emulator names the difference and ends
// the job.
//
// SPRT_EMU_NCCL_FAIL=N fails the Nth operation the process runs
// (collectives and groups, each replay's included) as a network failure
// does: the communicator's asynchronous error becomes ncclRemoteError
// (ncclCommGetAsyncError, from any thread) and the operation never
// completes, as NCCL's kernels spin.
//
// Unlike NCCL, an operation blocks the host until it completes: a program
// whose ranks issue operations that NCCL would run in the same order hangs
// here only where a rank's host waits for another rank's (MPI host control)
// between issuing an operation and its peers issuing theirs. And
// ncclCommInitRank is collective over MPI_COMM_WORLD (an MPI communicator
// is split from it): every process creates its communicators in the same
// order, as World::split's callers do.
//
//===----------------------------------------------------------------------===//

#include "Emu.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

struct ncclComm {
  MPI_Comm mpi = MPI_COMM_NULL;
  int rank = 0, size = 1;
  /// Set once (SPRT_EMU_NCCL_FAIL), its account written before.
  std::atomic<int> asyncError{ncclSuccess};
  std::string asyncAccount;
};

namespace {

std::string lastError;
int groupDepth = 0;

/// A send or recv of the open group.
struct P2p {
  bool recv;
  void *buf;
  size_t bytes;
  int peer;
  ncclComm_t comm;
  cudaStream_t stream;
};
std::vector<P2p> group;

ncclResult_t fail(ncclResult_t r, const std::string &what) {
  lastError = what;
  return r;
}

size_t elementBytes(ncclDataType_t t) {
  switch (t) {
  case ncclInt8:
  case ncclUint8:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  case ncclInt64:
  case ncclUint64:
  case ncclFloat64:
    return 8;
  default:
    return 0;
  }
}

float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t toBf16(float f) { // round to nearest even, as __float2bfloat16
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

template <typename T> T combine(T a, T b, ncclRedOp_t op) {
  switch (op) {
  case ncclMax:
    return a < b ? b : a;
  case ncclMin:
    return b < a ? b : a;
  case ncclProd:
    return a * b;
  default:
    return a + b;
  }
}

/// acc[i] = acc[i] op x[i] for n elements of type t.
void reduceInto(void *acc, const void *x, size_t n, ncclDataType_t t,
                ncclRedOp_t op) {
  auto each = [&](auto *a, const auto *b) {
    for (size_t i = 0; i < n; ++i)
      a[i] = combine(a[i], b[i], op);
  };
  switch (t) {
  case ncclFloat32:
    return each(static_cast<float *>(acc), static_cast<const float *>(x));
  case ncclFloat64:
    return each(static_cast<double *>(acc), static_cast<const double *>(x));
  case ncclInt32:
    return each(static_cast<int32_t *>(acc), static_cast<const int32_t *>(x));
  case ncclInt64:
    return each(static_cast<int64_t *>(acc), static_cast<const int64_t *>(x));
  case ncclBfloat16: {
    auto *a = static_cast<uint16_t *>(acc);
    const auto *b = static_cast<const uint16_t *>(x);
    for (size_t i = 0; i < n; ++i)
      a[i] = toBf16(combine(fromBf16(a[i]), fromBf16(b[i]), op));
    return;
  }
  default:
    return;
  }
}

ncclResult_t checkReduction(ncclDataType_t t, ncclRedOp_t op,
                            const char *what) {
  const bool typed = t == ncclFloat32 || t == ncclFloat64 || t == ncclInt32 ||
                     t == ncclInt64 || t == ncclBfloat16;
  if (!typed || op < ncclSum || op > ncclMin)
    return fail(ncclInvalidArgument,
                std::string(what) +
                    ": the emulator reduces f32, f64, i32, i64 and bf16 by "
                    "sum, prod, max or min");
  return ncclSuccess;
}

ncclResult_t checkBuffer(const void *p, size_t bytes, const char *what,
                         const char *which) {
  if (bytes == 0 || sprt_emu::isDeviceMemory(p, bytes))
    return ncclSuccess;
  return fail(ncclInvalidArgument,
              std::string(what) + ": " + which + " (" + std::to_string(bytes) +
                  " bytes) is not device memory cudaMalloc gave");
}

ncclResult_t checkComm(ncclComm_t comm, const char *what) {
  return comm && comm->mpi != MPI_COMM_NULL
             ? ncclSuccess
             : fail(ncclInvalidArgument,
                    std::string(what) + ": not a live communicator");
}

/// Runs `op` as stream work of `stream` (recorded while it is captured).
ncclResult_t onStream(cudaStream_t stream, std::function<void()> op,
                      const char *what) {
  cudaError_t e = sprt_emu::enqueue(stream, std::move(op));
  if (e != cudaSuccess)
    return fail(ncclUnhandledCudaError,
                std::string(what) + ": " + cudaGetErrorName(e));
  return ncclSuccess;
}

/// Counts an operation as it runs; the one SPRT_EMU_NCCL_FAIL names fails
/// asynchronously and never completes.
void runs(ncclComm_t comm, const char *what) {
  static const long failAt = [] {
    const char *n = std::getenv("SPRT_EMU_NCCL_FAIL");
    return n ? std::atol(n) : 0L;
  }();
  static long count = 0;
  if (failAt <= 0 || ++count != failAt)
    return;
  comm->asyncAccount =
      std::string("sprt emu: ") + what +
      " failed as SPRT_EMU_NCCL_FAIL=" + std::to_string(failAt) + " asked";
  comm->asyncError.store(ncclRemoteError, std::memory_order_release);
  for (;;)
    std::this_thread::sleep_for(std::chrono::seconds(1));
}

[[noreturn]] void misuse(const std::string &what) {
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  std::fprintf(stderr, "sprt emu: world rank %d: %s\n", world, what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

/// A collective call, as every rank of the communicator must make it.
struct Call {
  char op[24];
  int32_t type, reduction;
  int64_t count;
};

const char *typeName(int32_t t) {
  switch (t) {
  case ncclInt8:
    return "i8";
  case ncclUint8:
    return "u8";
  case ncclInt32:
    return "i32";
  case ncclUint32:
    return "u32";
  case ncclInt64:
    return "i64";
  case ncclUint64:
    return "u64";
  case ncclFloat16:
    return "f16";
  case ncclFloat32:
    return "f32";
  case ncclFloat64:
    return "f64";
  case ncclBfloat16:
    return "bf16";
  default:
    return "?";
  }
}

std::string describe(const Call &c) {
  static const char *reductions[] = {"sum", "prod", "max", "min", "avg"};
  std::string s = std::string(c.op) + " of " + std::to_string(c.count) + " " +
                  typeName(c.type);
  if (c.reduction >= 0 && c.reduction < 5)
    s += std::string(" (") + reductions[c.reduction] + ")";
  return s;
}

/// Ends the job where the ranks of `comm` do not make the same call.
void sameCall(ncclComm_t comm, const char *op, ncclDataType_t t, int reduction,
              size_t count) {
  Call mine;
  std::memset(&mine, 0, sizeof mine);
  std::strncpy(mine.op, op, sizeof mine.op - 1);
  mine.type = t;
  mine.reduction = reduction;
  mine.count = int64_t(count);
  std::vector<Call> all(size_t(comm->size));
  MPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine),
                MPI_BYTE, comm->mpi);
  for (int r = 1; r < comm->size; ++r)
    if (std::memcmp(&all[size_t(r)], &all[0], sizeof mine) != 0)
      misuse("rank " + std::to_string(r) + " of an NCCL communicator of " +
             std::to_string(comm->size) + " ranks calls " +
             describe(all[size_t(r)]) + " where its rank 0 calls " +
             describe(all[0]) + ": NCCL would hang or mix up the ranks' data");
}

/// Every rank's `bytes` bytes from `in`, in rank order.
std::vector<char> gatherAll(const void *in, size_t bytes, MPI_Comm comm,
                            int size) {
  std::vector<char> all(bytes * size_t(size));
  MPI_Allgather(in, int(bytes), MPI_BYTE, all.data(), int(bytes), MPI_BYTE,
                comm);
  return all;
}

/// Posts the sends and receives and waits for them all.
void exchange(const std::vector<P2p> &ops) {
  runs(ops.front().comm, "ncclGroupEnd");
  std::vector<MPI_Request> requests(ops.size());
  std::vector<MPI_Status> statuses(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const P2p &p = ops[i];
    if (p.recv)
      MPI_Irecv(p.buf, int(p.bytes), MPI_BYTE, p.peer, 0, p.comm->mpi,
                &requests[i]);
    else
      MPI_Isend(p.buf, int(p.bytes), MPI_BYTE, p.peer, 0, p.comm->mpi,
                &requests[i]);
  }
  // The communicators return errors (ncclCommInitRank): a send larger than
  // its recv is named below, not MPI's abort.
  const int failed =
      MPI_Waitall(int(requests.size()), requests.data(), statuses.data());
  for (size_t i = 0; i < ops.size(); ++i) {
    const P2p &p = ops[i];
    if (!p.recv)
      continue;
    int got = -1;
    if (failed == MPI_SUCCESS || statuses[i].MPI_ERROR == MPI_SUCCESS)
      MPI_Get_count(&statuses[i], MPI_BYTE, &got);
    if (got != int(p.bytes))
      misuse("ncclRecv of " + std::to_string(p.bytes) + " bytes from rank " +
             std::to_string(p.peer) + " of its communicator got " +
             (got < 0 ? std::string("more (its ncclSend is larger)")
                      : std::to_string(got) + " (its ncclSend's)") +
             ": NCCL would hang or mix up the ranks' data");
  }
}

ncclResult_t point(bool recv, void *buf, size_t count, ncclDataType_t t,
                   int peer, ncclComm_t comm, cudaStream_t stream) {
  const char *what = recv ? "ncclRecv" : "ncclSend";
  if (ncclResult_t r = checkComm(comm, what))
    return r;
  if (peer < 0 || peer >= comm->size)
    return fail(ncclInvalidArgument, std::string(what) + ": peer " +
                                         std::to_string(peer) +
                                         " is not a rank of the communicator");
  const size_t bytes = count * elementBytes(t);
  if (ncclResult_t r = checkBuffer(buf, bytes, what, "the buffer"))
    return r;
  group.push_back({recv, buf, bytes, peer, comm, stream});
  return groupDepth > 0 ? ncclSuccess : ncclGroupEnd();
}

/// ncclAllReduce, or with `scatter` ncclReduceScatter: `count` elements
/// out, every rank's (their block `rank` of `send` with `scatter`) combined
/// in rank order.
ncclResult_t reduce(const char *what, bool scatter, const void *send,
                    void *recv, size_t count, ncclDataType_t t, ncclRedOp_t op,
                    ncclComm_t comm, cudaStream_t stream) {
  if (ncclResult_t r = checkComm(comm, what))
    return r;
  if (ncclResult_t r = checkReduction(t, op, what))
    return r;
  const size_t bytes = count * elementBytes(t);
  const size_t total = scatter ? bytes * size_t(comm->size) : bytes;
  if (ncclResult_t r = checkBuffer(send, total, what, "the send buffer"))
    return r;
  if (ncclResult_t r = checkBuffer(recv, bytes, what, "the receive buffer"))
    return r;
  return onStream(
      stream,
      [=] {
        runs(comm, what);
        sameCall(comm, what, t, op, count);
        std::vector<char> all = gatherAll(send, total, comm->mpi, comm->size);
        char *mine = all.data() + (scatter ? bytes * size_t(comm->rank) : 0);
        for (int p = 1; p < comm->size; ++p)
          reduceInto(mine, mine + total * size_t(p), count, t, op);
        std::memcpy(recv, mine, bytes);
      },
      what);
}

} // namespace

extern "C" {

const char *ncclGetErrorString(ncclResult_t r) {
  switch (r) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  default:
    return "unknown result code";
  }
}

const char *ncclGetLastError(ncclComm_t comm) {
  if (comm && comm->asyncError.load(std::memory_order_acquire) != ncclSuccess)
    return comm->asyncAccount.c_str();
  return lastError.c_str();
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *error) {
  if (!comm)
    return ncclInvalidArgument;
  *error = ncclResult_t(comm->asyncError.load(std::memory_order_acquire));
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  // The root's world rank: the colour its communicator is split by.
  std::memset(id, 0, sizeof *id);
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  std::memcpy(id->internal, "sprt-emu", 8);
  std::memcpy(id->internal + 8, &world, sizeof world);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                              int rank) {
  *comm = nullptr;
  if (std::memcmp(id.internal, "sprt-emu", 8) != 0)
    return fail(ncclInvalidArgument,
                "ncclCommInitRank: not an id ncclGetUniqueId gave");
  int color = 0;
  std::memcpy(&color, id.internal + 8, sizeof color);
  MPI_Comm mpi = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &mpi);
  int size = 0, me = 0;
  MPI_Comm_size(mpi, &size);
  MPI_Comm_rank(mpi, &me);
  if (size != nranks || me != rank) {
    MPI_Comm_free(&mpi);
    return fail(ncclInvalidArgument,
                "ncclCommInitRank: rank " + std::to_string(rank) + " of " +
                    std::to_string(nranks) + ", but " + std::to_string(size) +
                    " ranks joined with this id");
  }
  MPI_Comm_set_errhandler(mpi, MPI_ERRORS_RETURN);
  *comm = new ncclComm{mpi, rank, nranks};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm->mpi != MPI_COMM_NULL)
    MPI_Comm_free(&comm->mpi);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  delete comm; // its MPI communicator is left to the ending process
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
                           ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t stream) {
  const char *what = "ncclAllGather";
  if (ncclResult_t r = checkComm(comm, what))
    return r;
  const size_t bytes = count * elementBytes(t);
  if (ncclResult_t r = checkBuffer(send, bytes, what, "the send buffer"))
    return r;
  if (ncclResult_t r = checkBuffer(recv, bytes * size_t(comm->size), what,
                                   "the receive "
                                   "buffer"))
    return r;
  return onStream(
      stream,
      [=] {
        runs(comm, what);
        sameCall(comm, what, t, -1, count);
        std::vector<char> all = gatherAll(send, bytes, comm->mpi, comm->size);
        std::memcpy(recv, all.data(), all.size());
      },
      what);
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
                           ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  return reduce("ncclAllReduce", false, send, recv, count, t, op, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count,
                               ncclDataType_t t, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t stream) {
  return reduce("ncclReduceScatter", true, send, recv, count, t, op, comm,
                stream);
}

ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t t,
                      int peer, ncclComm_t comm, cudaStream_t stream) {
  return point(false, const_cast<void *>(send), count, t, peer, comm, stream);
}

ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t t, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  return point(true, recv, count, t, peer, comm, stream);
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (groupDepth > 0 && --groupDepth > 0)
    return ncclSuccess;
  std::vector<P2p> ops;
  ops.swap(group);
  if (ops.empty())
    return ncclSuccess;
  for (const P2p &p : ops)
    if (p.stream != ops.front().stream)
      return fail(ncclInvalidUsage, "ncclGroupEnd: the emulator runs a "
                                    "group's operations on one stream");
  return onStream(
      ops.front().stream, [ops] { exchange(ops); }, "ncclGroupEnd");
}

} // extern "C"

//===- MpiComm.cpp - the communication layer over MPI ---------------------===//
//
// Device memory is host memory on the CPU backend: MPI reads and writes the
// buffers directly. Work already issued on the compute stream is waited for
// before each start, so a backend whose stream runs ahead of the host still
// hands MPI finished data. Staged (a GPU's memory, or --comm mpi-staged on
// any backend): each operation copies its inputs to host buffers it owns,
// MPI runs on those, and wait() copies the result back to the device
// buffer, so ranks need no NCCL and may share one GPU.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "MpiWorld.h"

#include "sprt/device.h"
#include "sprt/dtype.h"

#include <climits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace sprt;

namespace {
class MpiRequest : public CommRequest {
public:
  MpiRequest(const char *what, int32_t axis) : what(what), axis(axis) {}
  ~MpiRequest() override {
    // A request nobody waited for still completes before its buffers go.
    if (request != MPI_REQUEST_NULL)
      finish();
  }
  void wait() override { finish(); }

  /// Host copies of device buffers (staged operations). A copy of `bytes`
  /// of `device`, ready when this returns.
  const void *stageIn(const void *device, int64_t bytes) {
    in.resize(size_t(bytes));
    copyToHost(in.data(), device, bytes);
    return in.data();
  }
  /// A host buffer for a result wait() copies to `device`; `initialised`:
  /// holding the device buffer's bytes first (in-place operations).
  void *stageOut(void *device, int64_t bytes, bool initialised = false) {
    out.resize(size_t(bytes));
    outDevice = device;
    if (initialised)
      copyToHost(out.data(), device, bytes);
    return out.data();
  }

  MPI_Request request = MPI_REQUEST_NULL;

private:
  static void copyToHost(void *host, const void *device, int64_t bytes) {
    sprt_memcpy_to_host(host, device, bytes, sprt_current_stream());
    sprt_stream_synchronize(sprt_current_stream());
  }
  void finish() {
    waitMpi(request, what, axis);
    if (outDevice) {
      sprt_memcpy_to_device(outDevice, out.data(), int64_t(out.size()),
                            sprt_current_stream());
      // The host buffer goes with this request.
      sprt_stream_synchronize(sprt_current_stream());
      outDevice = nullptr;
    }
  }

  const char *what;
  int32_t axis;
  std::vector<char> in, out;
  void *outDevice = nullptr;
};

/// MPI's element counts are ints: a larger message is an error naming the
/// collective, never a count that wraps around.
int mpiCount(int64_t n, const char *what, const char *unit) {
  if (n < 0 || n > INT_MAX)
    throw std::length_error(std::string("sprt: ") + what + " of " +
                            std::to_string(n) + " " + unit +
                            " per rank exceeds the MPI count limit (" +
                            std::to_string(INT_MAX) + ")");
  return int(n);
}

MPI_Op mpiOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return MPI_MAX;
  case ReduceOp::Min:
    return MPI_MIN;
  case ReduceOp::Sum:
    break;
  }
  return MPI_SUM;
}

/// inout[i] = in[i] + inout[i] in bf16 (dtype::addBf16: added in f32, the
/// sum rounded to bf16, nearest even). MPI has no bf16 type: bf16 travels
/// as 16-bit integers reduced by this operation, which MPI applies to two
/// buffers at a time, so every partial sum of a reduction over n ranks is
/// rounded to bf16 (n - 1 roundings per element, in an order MPI chooses).
void sumBf16(void *in, void *inout, int *len, MPI_Datatype *) {
  const uint16_t *a = static_cast<const uint16_t *>(in);
  uint16_t *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = dtype::addBf16(a[i], b[i]);
}

/// The MPI_Op of sumBf16, created once (after MPI_Init: the first bf16
/// reduction) and freed by MPI_Finalize.
MPI_Op bf16SumOp() {
  static MPI_Op op = [] {
    MPI_Op created;
    MPI_Op_create(sumBf16, /*commute=*/1, &created);
    return created;
  }();
  return op;
}

/// The MPI datatype and operation of a reduction of `type` elements.
std::pair<MPI_Datatype, MPI_Op> mpiReduction(ElemType type, ReduceOp op) {
  if (type == ElemType::F32)
    return {MPI_FLOAT, mpiOp(op)};
  if (op != ReduceOp::Sum)
    throw std::invalid_argument("sprt: a bf16 all_reduce sums only");
  return {MPI_UINT16_T, bf16SumOp()};
}

class MpiComm : public Comm {
public:
  MpiComm(MPI_Comm comm, int32_t axis, bool staged)
      : comm(comm), axis(axis), staged(staged) {
    MPI_Comm_rank(comm, &myRank);
    MPI_Comm_size(comm, &mySize);
  }
  ~MpiComm() override {
    // A mesh still set up at exit (no sprt_mesh_finalize) outlives MPI.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Comm_free(&comm);
  }

  int rank() const override { return myRank; }
  int size() const override { return mySize; }

  CommHandle startAllGather(const void *in, void *out, int64_t bytes) override {
    auto r = start("all_gather");
    bool inPlace = in == static_cast<char *>(out) + myRank * bytes;
    int n = mpiCount(bytes, "all_gather", "bytes");
    if (staged) {
      out = r->stageOut(out, mySize * bytes, inPlace);
      in = inPlace ? nullptr : r->stageIn(in, bytes);
    }
    MPI_Iallgather(inPlace ? MPI_IN_PLACE : in, n, MPI_BYTE, out, n, MPI_BYTE,
                   comm, &r->request);
    return r;
  }

  CommHandle startReduceScatter(const void *in, void *out, int64_t count,
                                ElemType type) override {
    auto [datatype, op] = mpiReduction(type, ReduceOp::Sum);
    auto r = start("reduce_scatter");
    if (staged) {
      in = r->stageIn(in, mySize * count * elemBytes(type));
      out = r->stageOut(out, count * elemBytes(type));
    }
    MPI_Ireduce_scatter_block(in, out,
                              mpiCount(count, "reduce_scatter", "elements"),
                              datatype, op, comm, &r->request);
    return r;
  }

  CommHandle startAllReduce(const void *in, void *out, int64_t n, ReduceOp op,
                            ElemType type) override {
    auto [datatype, mpiop] = mpiReduction(type, op);
    auto r = start("all_reduce");
    bool inPlace = in == out;
    if (staged) {
      out = r->stageOut(out, n * elemBytes(type), inPlace);
      in = inPlace ? out : r->stageIn(in, n * elemBytes(type));
    }
    MPI_Iallreduce(inPlace ? MPI_IN_PLACE : in, out,
                   mpiCount(n, "all_reduce", "elements"), datatype, mpiop, comm,
                   &r->request);
    return r;
  }

  CommHandle startAllToAll(const void *in, void *out, int64_t bytes) override {
    auto r = start("all_to_all");
    int n = mpiCount(bytes, "all_to_all", "bytes");
    if (staged) {
      in = r->stageIn(in, mySize * bytes);
      out = r->stageOut(out, mySize * bytes);
    }
    MPI_Ialltoall(in, n, MPI_BYTE, out, n, MPI_BYTE, comm, &r->request);
    return r;
  }

  CommHandle startSend(const void *in, int64_t bytes, int peer) override {
    auto r = start("send");
    if (staged)
      in = r->stageIn(in, bytes);
    MPI_Isend(in, mpiCount(bytes, "send", "bytes"), MPI_BYTE, peer, 0, comm,
              &r->request);
    return r;
  }

  CommHandle startRecv(void *out, int64_t bytes, int peer) override {
    auto r = start("recv");
    if (staged)
      out = r->stageOut(out, bytes);
    MPI_Irecv(out, mpiCount(bytes, "recv", "bytes"), MPI_BYTE, peer, 0, comm,
              &r->request);
    return r;
  }

private:
  std::unique_ptr<MpiRequest> start(const char *what) {
    sprt_stream_synchronize(sprt_current_stream());
    return std::make_unique<MpiRequest>(what, axis);
  }

  MPI_Comm comm;
  int32_t axis;
  bool staged;
  int myRank = 0, mySize = 1;
};
} // namespace

std::unique_ptr<Comm> sprt::makeMpiComm(MPI_Comm comm, int32_t axis,
                                        bool staged) {
  return std::make_unique<MpiComm>(comm, axis, staged);
}

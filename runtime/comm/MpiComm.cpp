//===- MpiComm.cpp - the communication layer over MPI ---------------------===//
//
// Device memory is host memory on the ranks this serves (the CPU backend):
// MPI reads and writes the buffers directly. Work already issued on the
// compute stream is waited for before each start, so a backend whose stream
// runs ahead of the host still hands MPI finished data.
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

using namespace sprt;

namespace {
class MpiRequest : public CommRequest {
public:
  MpiRequest(const char *what, int32_t axis) : what(what), axis(axis) {}
  ~MpiRequest() override {
    // A request nobody waited for still completes before its buffers go.
    if (request != MPI_REQUEST_NULL)
      waitMpi(request, what, axis);
  }
  void wait() override { waitMpi(request, what, axis); }

  MPI_Request request = MPI_REQUEST_NULL;

private:
  const char *what;
  int32_t axis;
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
  MpiComm(MPI_Comm comm, int32_t axis) : comm(comm), axis(axis) {
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
    MPI_Iallgather(inPlace ? MPI_IN_PLACE : in, n, MPI_BYTE, out, n, MPI_BYTE,
                   comm, &r->request);
    return r;
  }

  CommHandle startReduceScatter(const void *in, void *out, int64_t count,
                                ElemType type) override {
    auto [datatype, op] = mpiReduction(type, ReduceOp::Sum);
    auto r = start("reduce_scatter");
    MPI_Ireduce_scatter_block(in, out,
                              mpiCount(count, "reduce_scatter", "elements"),
                              datatype, op, comm, &r->request);
    return r;
  }

  CommHandle startAllReduce(const void *in, void *out, int64_t n, ReduceOp op,
                            ElemType type) override {
    auto [datatype, mpiop] = mpiReduction(type, op);
    auto r = start("all_reduce");
    MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out,
                   mpiCount(n, "all_reduce", "elements"), datatype, mpiop, comm,
                   &r->request);
    return r;
  }

  CommHandle startAllToAll(const void *in, void *out, int64_t bytes) override {
    auto r = start("all_to_all");
    int n = mpiCount(bytes, "all_to_all", "bytes");
    MPI_Ialltoall(in, n, MPI_BYTE, out, n, MPI_BYTE, comm, &r->request);
    return r;
  }

  CommHandle startSend(const void *in, int64_t bytes, int peer) override {
    auto r = start("send");
    MPI_Isend(in, mpiCount(bytes, "send", "bytes"), MPI_BYTE, peer, 0, comm,
              &r->request);
    return r;
  }

  CommHandle startRecv(void *out, int64_t bytes, int peer) override {
    auto r = start("recv");
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
  int myRank = 0, mySize = 1;
};
} // namespace

const char *World::name() { return "mpi"; }

std::unique_ptr<Comm> World::split(int64_t color, int64_t key, int32_t axis) {
  return std::make_unique<MpiComm>(splitMpi(color, key), axis);
}

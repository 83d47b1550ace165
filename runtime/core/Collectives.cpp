//===- Collectives.cpp - collectives along one mesh axis over MPI ---------===//
//
// Every collective works on a row-major tensor viewed as [outer, n, inner]
// around the dimension it splits or joins, so that MPI always moves
// contiguous blocks: blocks are packed before and unpacked after when the
// dimension is not the outermost one.
//
//===----------------------------------------------------------------------===//

#include "Failure.h"
#include "Mesh.h"

#include "sprt/runtime.h"

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

using namespace sprt;

namespace {
/// A tensor's shape seen around dimension `dim`.
struct View {
  int64_t outer = 1, mid = 1, inner = 1; // inner in bytes

  View(int64_t elemBytes, int32_t rank, const int64_t dims[4], int32_t dim) {
    if (dim < 0 || dim >= rank)
      throw std::invalid_argument("sprt: collective dimension out of range");
    for (int32_t i = 0; i < dim; ++i)
      outer *= dims[i];
    mid = dims[dim];
    inner = elemBytes;
    for (int32_t i = dim + 1; i < rank; ++i)
      inner *= dims[i];
  }
  int64_t bytes() const { return outer * mid * inner; }
};

/// Copies block `index` of `count` equal blocks along the view's middle
/// dimension of `in` into the contiguous `out`.
void extractBlock(const char *in, const View &v, int64_t index, int64_t count,
                  char *out) {
  int64_t m = v.mid / count, rowBytes = m * v.inner;
  for (int64_t o = 0; o < v.outer; ++o)
    std::memcpy(out + o * rowBytes, in + (o * v.mid + index * m) * v.inner,
                rowBytes);
}

/// The inverse: writes the contiguous block `in` as block `index` of
/// `count` along the middle dimension of `out` (whose view is `v`).
void insertBlock(const char *in, const View &v, int64_t index, int64_t count,
                 char *out) {
  int64_t m = v.mid / count, rowBytes = m * v.inner;
  for (int64_t o = 0; o < v.outer; ++o)
    std::memcpy(out + (o * v.mid + index * m) * v.inner, in + o * rowBytes,
                rowBytes);
}

void count(int32_t axis, int64_t bytes) { mesh().bytesSent.at(axis) += bytes; }

MPI_Op mpiOp(int32_t kind) {
  switch (kind) {
  case SPRT_MAX:
    return MPI_MAX;
  case SPRT_MIN:
    return MPI_MIN;
  default:
    return MPI_SUM;
  }
}

/// Non-blocking operations in flight: the request and what to do after it.
struct Pending {
  MPI_Request request = MPI_REQUEST_NULL;
  const char *what = "";
  int32_t axis = -1;
  std::vector<char> buffer;
  std::function<void()> finish;
};
std::map<int64_t, std::unique_ptr<Pending>> &pending() {
  static std::map<int64_t, std::unique_ptr<Pending>> p;
  return p;
}
int64_t nextHandle = 1;

/// Gathers `in` along `dim` into `out`, through `p` when non-blocking.
int64_t allGather(const void *in, void *out, int64_t elemBytes, int32_t rank,
                  const int64_t dims[4], int32_t dim, int32_t axis,
                  bool blocking) {
  int64_t n = sprt_axis_size(axis);
  View local(elemBytes, rank, dims, dim);
  View global = local;
  global.mid *= n;
  count(axis, local.bytes() * (n - 1));
  auto p = std::make_unique<Pending>();
  char *recv = static_cast<char *>(out);
  if (local.outer != 1) {
    p->buffer.resize(local.bytes() * n);
    recv = p->buffer.data();
    Pending *raw = p.get();
    p->finish = [raw, global, n, out, local]() {
      for (int64_t r = 0; r < n; ++r)
        insertBlock(raw->buffer.data() + r * local.bytes(), global, r, n,
                    static_cast<char *>(out));
    };
  }
  p->what = "all_gather";
  p->axis = axis;
  MPI_Iallgather(in, int(local.bytes()), MPI_BYTE, recv, int(local.bytes()),
                 MPI_BYTE, mesh().comm(axis), &p->request);
  int64_t handle = nextHandle++;
  pending()[handle] = std::move(p);
  if (blocking) {
    sprt_wait(handle);
    return 0;
  }
  return handle;
}
} // namespace

extern "C" void sprt_wait(int64_t handle) {
  auto it = pending().find(handle);
  if (it == pending().end())
    return;
  waitFor(it->second->request, it->second->what, it->second->axis);
  if (it->second->finish)
    it->second->finish();
  pending().erase(it);
}

extern "C" void sprt_all_gather(const void *in, void *out, int64_t elemBytes,
                                int32_t rank, int64_t d0, int64_t d1,
                                int64_t d2, int64_t d3, int32_t dim,
                                int32_t axis) {
  int64_t dims[4] = {d0, d1, d2, d3};
  allGather(in, out, elemBytes, rank, dims, dim, axis, /*blocking=*/true);
}

extern "C" int64_t sprt_all_gather_start(const void *in, void *out,
                                         int64_t elemBytes, int32_t rank,
                                         int64_t d0, int64_t d1, int64_t d2,
                                         int64_t d3, int32_t dim,
                                         int32_t axis) {
  int64_t dims[4] = {d0, d1, d2, d3};
  return allGather(in, out, elemBytes, rank, dims, dim, axis,
                   /*blocking=*/false);
}

extern "C" void sprt_reduce_scatter_f32(const float *in, float *out,
                                        int32_t rank, int64_t d0, int64_t d1,
                                        int64_t d2, int64_t d3, int32_t dim,
                                        int32_t axis) {
  int64_t n = sprt_axis_size(axis);
  int64_t dims[4] = {d0, d1, d2, d3};
  View full(sizeof(float), rank, dims, dim);
  if (full.mid % n != 0)
    throw std::invalid_argument("sprt: reduce_scatter of an indivisible dim");
  int64_t blockBytes = full.bytes() / n;
  count(axis, blockBytes * (n - 1));
  const char *send = reinterpret_cast<const char *>(in);
  std::vector<char> packed;
  if (full.outer != 1) {
    packed.resize(full.bytes());
    for (int64_t r = 0; r < n; ++r)
      extractBlock(send, full, r, n, packed.data() + r * blockBytes);
    send = packed.data();
  }
  MPI_Request request;
  MPI_Ireduce_scatter_block(send, out, int(blockBytes / sizeof(float)),
                            MPI_FLOAT, MPI_SUM, mesh().comm(axis), &request);
  waitFor(request, "reduce_scatter", axis);
}

static void finishReduce(float *out, int64_t n, int32_t kind, int32_t axis) {
  if (kind != SPRT_MEAN)
    return;
  float scale = 1.0f / float(sprt_axis_size(axis));
  for (int64_t i = 0; i < n; ++i)
    out[i] *= scale;
}

extern "C" void sprt_all_reduce_f32(const float *in, float *out, int64_t n,
                                    int32_t kind, int32_t axis) {
  int64_t size = sprt_axis_size(axis);
  count(axis, 2 * (n * int64_t(sizeof(float)) / size) * (size - 1));
  MPI_Request request;
  MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out, int(n), MPI_FLOAT,
                 mpiOp(kind), mesh().comm(axis), &request);
  waitFor(request, "all_reduce", axis);
  finishReduce(out, n, kind, axis);
}

extern "C" int64_t sprt_all_reduce_start_f32(const float *in, float *out,
                                             int64_t n, int32_t kind,
                                             int32_t axis) {
  int64_t size = sprt_axis_size(axis);
  count(axis, 2 * (n * int64_t(sizeof(float)) / size) * (size - 1));
  auto p = std::make_unique<Pending>();
  p->what = "all_reduce";
  p->axis = axis;
  MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out, int(n), MPI_FLOAT,
                 mpiOp(kind), mesh().comm(axis), &p->request);
  p->finish = [out, n, kind, axis]() { finishReduce(out, n, kind, axis); };
  int64_t handle = nextHandle++;
  pending()[handle] = std::move(p);
  return handle;
}

extern "C" int64_t sprt_reduce_scatter_start_f32(const float *in, float *out,
                                                 int64_t n, int32_t axis) {
  int64_t size = sprt_axis_size(axis);
  if (n % size != 0)
    throw std::invalid_argument("sprt: reduce_scatter of an indivisible dim");
  count(axis, (n / size) * int64_t(sizeof(float)) * (size - 1));
  auto p = std::make_unique<Pending>();
  p->what = "reduce_scatter";
  p->axis = axis;
  MPI_Ireduce_scatter_block(in, out, int(n / size), MPI_FLOAT, MPI_SUM,
                            mesh().comm(axis), &p->request);
  int64_t handle = nextHandle++;
  pending()[handle] = std::move(p);
  return handle;
}

extern "C" void sprt_local_slice(const void *in, void *out, int64_t elemBytes,
                                 int32_t rank, int64_t d0, int64_t d1,
                                 int64_t d2, int64_t d3, int32_t dim,
                                 int32_t axis) {
  int64_t dims[4] = {d0, d1, d2, d3};
  View full(elemBytes, rank, dims, dim);
  extractBlock(static_cast<const char *>(in), full, sprt_axis_coord(axis),
               sprt_axis_size(axis), static_cast<char *>(out));
}

extern "C" void sprt_all_to_all(const void *in, void *out, int64_t elemBytes,
                                int32_t rank, int64_t d0, int64_t d1,
                                int64_t d2, int64_t d3, int32_t splitDim,
                                int32_t concatDim, int32_t axis) {
  int64_t n = sprt_axis_size(axis);
  int64_t dims[4] = {d0, d1, d2, d3};
  View src(elemBytes, rank, dims, splitDim);
  int64_t blockBytes = src.bytes() / n;
  count(axis, blockBytes * (n - 1));
  std::vector<char> send(src.bytes()), recv(src.bytes());
  for (int64_t j = 0; j < n; ++j)
    extractBlock(static_cast<const char *>(in), src, j, n,
                 send.data() + j * blockBytes);
  MPI_Request request;
  MPI_Ialltoall(send.data(), int(blockBytes), MPI_BYTE, recv.data(),
                int(blockBytes), MPI_BYTE, mesh().comm(axis), &request);
  waitFor(request, "all_to_all", axis);
  int64_t outDims[4] = {d0, d1, d2, d3};
  outDims[splitDim] /= n;
  outDims[concatDim] *= n;
  View dst(elemBytes, rank, outDims, concatDim);
  for (int64_t r = 0; r < n; ++r)
    insertBlock(recv.data() + r * blockBytes, dst, r, n,
                static_cast<char *>(out));
}

static int peer(int64_t offset, int32_t axis) {
  int64_t n = sprt_axis_size(axis);
  return int(((sprt_axis_coord(axis) + offset) % n + n) % n);
}

extern "C" void sprt_send(const void *in, int64_t bytes, int64_t offset,
                          int32_t axis) {
  count(axis, bytes);
  MPI_Request request;
  MPI_Isend(in, int(bytes), MPI_BYTE, peer(offset, axis), 0, mesh().comm(axis),
            &request);
  waitFor(request, "send", axis);
}

extern "C" void sprt_recv(void *out, int64_t bytes, int64_t offset,
                          int32_t axis) {
  MPI_Request request;
  MPI_Irecv(out, int(bytes), MPI_BYTE, peer(offset, axis), 0, mesh().comm(axis),
            &request);
  waitFor(request, "recv", axis);
}

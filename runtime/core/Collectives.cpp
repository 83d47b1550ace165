//===- Collectives.cpp - collectives along one mesh axis ------------------===//
//
// Every collective works on a row-major tensor viewed as [outer, n, inner]
// around the dimension it splits or joins, so that the communication layer
// (Comm.h) always moves contiguous blocks: blocks are packed into the
// call's workspace before and unpacked after (sprt_copy_2d on the compute
// stream) when the dimension is not the outermost one. The workspace is the
// caller's (planned in the arena, Workspace.h); a non-blocking collective
// uses it until it is waited for.
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "Mesh.h"
#include "Trace.h"
#include "Workspace.h"

#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/runtime.h"

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
  int64_t rowBytes = v.mid / count * v.inner;
  sprt_copy_2d(out, rowBytes, in + index * rowBytes, v.mid * v.inner, rowBytes,
               v.outer, sprt_current_stream());
}

/// The inverse: writes the contiguous block `in` as block `index` of
/// `count` along the middle dimension of `out` (whose view is `v`).
void insertBlock(const char *in, const View &v, int64_t index, int64_t count,
                 char *out) {
  int64_t rowBytes = v.mid / count * v.inner;
  sprt_copy_2d(out + index * rowBytes, v.mid * v.inner, in, rowBytes, rowBytes,
               v.outer, sprt_current_stream());
}

/// Copies, for every rank r of `n`, the two chunks of r's zigzag part
/// between `parts` (the n parts one after another, each [outer, 2c, inner]
/// for the view `part`) and `whole` (the view `part` with n times the
/// rows, natural order): chunk r and chunk 2n - 1 - r of `whole` are rows
/// [0, c) and [c, 2c) of part r. toWhole: parts -> whole, else whole ->
/// parts. `onlyRank` >= 0 restricts the copy to that rank's part (written
/// at `parts` itself).
void zigzagCopy(char *parts, char *whole, const View &part, int64_t n,
                bool toWhole, int64_t onlyRank = -1) {
  if (part.mid % 2 != 0)
    throw std::invalid_argument("sprt: zigzag split of an odd number of rows "
                                "per rank");
  const int64_t chunkBytes = part.mid / 2 * part.inner;
  const int64_t partPitch = part.mid * part.inner, wholePitch = partPitch * n;
  for (int64_t r = 0; r < n; ++r) {
    if (onlyRank >= 0 && r != onlyRank)
      continue;
    char *base = onlyRank >= 0 ? parts : parts + r * part.bytes();
    const int64_t chunk[2] = {r, 2 * n - 1 - r};
    for (int h = 0; h < 2; ++h) {
      char *p = base + h * chunkBytes, *w = whole + chunk[h] * chunkBytes;
      if (toWhole)
        sprt_copy_2d(w, wholePitch, p, partPitch, chunkBytes, part.outer,
                     sprt_current_stream());
      else
        sprt_copy_2d(p, partPitch, w, wholePitch, chunkBytes, part.outer,
                     sprt_current_stream());
    }
  }
}

ReduceOp reduceOp(int32_t kind) {
  switch (kind) {
  case SPRT_MAX:
    return ReduceOp::Max;
  case SPRT_MIN:
    return ReduceOp::Min;
  default: // SPRT_SUM, and SPRT_MEAN's sum before the division
    return ReduceOp::Sum;
  }
}

/// The operations started and not yet waited for: the request and what to
/// do after it (unpacking, MEAN's division).
struct Pending {
  CommHandle request;
  std::function<void()> finish;
  /// The mesh axis (for the trace).
  int32_t axis = -1;
};
std::map<int64_t, std::unique_ptr<Pending>> &pending() {
  static std::map<int64_t, std::unique_ptr<Pending>> p;
  return p;
}
int64_t nextHandle = 1;

/// Registers `p` (its request started) and waits for it when `blocking`.
int64_t track(std::unique_ptr<Pending> p, bool blocking) {
  int64_t handle = nextHandle++;
  pending()[handle] = std::move(p);
  if (!blocking)
    return handle;
  sprt_wait(handle);
  return 0;
}

} // namespace

int64_t sprt::trackStarted(std::unique_ptr<CommRequest> request,
                           std::function<void()> finish, int32_t axis) {
  auto p = std::make_unique<Pending>();
  p->request = std::move(request);
  p->finish = std::move(finish);
  p->axis = axis;
  return track(std::move(p), /*blocking=*/false);
}

namespace {
/// Gathers `in` along `dim` into `out`; a strided `dim` is received into
/// the workspace and unpacked.
int64_t allGather(const void *in, void *out, int64_t elemBytes, int32_t rank,
                  const int64_t dims[4], int32_t dim, int32_t axis, bool zigzag,
                  bool blocking, void *workspace, int64_t workspaceBytes) {
  int64_t n = sprt_axis_size(axis);
  View local(elemBytes, rank, dims, dim);
  View global = local;
  global.mid *= n;
  const bool staging = zigzag || local.outer != 1;
  char *staged = takeWorkspace(
      "all_gather", blocking ? "sprt_all_gather" : "sprt_all_gather_start",
      workspace, workspaceBytes, staging ? local.bytes() * n : 0);
  countBytes(axis, local.bytes() * (n - 1));
  auto p = std::make_unique<Pending>();
  p->axis = axis;
  char *recv = static_cast<char *>(out);
  if (zigzag) {
    recv = staged;
    p->finish = [recv, n, out, local]() {
      zigzagCopy(recv, static_cast<char *>(out), local, n, /*toWhole=*/true);
    };
  } else if (local.outer != 1) {
    recv = staged;
    p->finish = [recv, global, n, out, local]() {
      for (int64_t r = 0; r < n; ++r)
        insertBlock(recv + r * local.bytes(), global, r, n,
                    static_cast<char *>(out));
    };
  }
  p->request = mesh().comm(axis).startAllGather(in, recv, local.bytes());
  return track(std::move(p), blocking);
}

/// Reduces `in` (n f32) over the axis into `out`.
int64_t allReduce(const float *in, float *out, int64_t n, int32_t kind,
                  int32_t axis, bool blocking) {
  int64_t size = sprt_axis_size(axis);
  countBytes(axis, 2 * (n * int64_t(sizeof(float)) / size) * (size - 1));
  auto p = std::make_unique<Pending>();
  p->axis = axis;
  if (kind == SPRT_MEAN)
    p->finish = [out, n, size]() {
      // The f32 reciprocal, so the product rounds as x * (1.0f / size).
      sprt_scale_f32(out, n, double(1.0f / float(size)));
    };
  p->request = mesh().comm(axis).startAllReduce(in, out, n, reduceOp(kind),
                                                ElemType::F32);
  return track(std::move(p), blocking);
}
} // namespace

void sprt::countBytes(int32_t axis, int64_t bytes) {
  mesh().bytesSent.at(size_t(axis)) += bytes;
}

extern "C" void sprt_wait(int64_t handle) {
  auto it = pending().find(handle);
  if (it == pending().end())
    return;
  std::unique_ptr<Pending> p = std::move(it->second);
  pending().erase(it);
  TraceSpan span("wait", p->axis);
  p->request->wait();
  if (p->finish)
    p->finish();
}

extern "C" void sprt_all_gather(const void *in, void *out, int64_t elemBytes,
                                int32_t rank, int64_t d0, int64_t d1,
                                int64_t d2, int64_t d3, int32_t dim,
                                int32_t axis, int32_t zigzag, void *workspace,
                                int64_t workspace_bytes) {
  TraceSpan span("all_gather", axis);
  int64_t dims[4] = {d0, d1, d2, d3};
  allGather(in, out, elemBytes, rank, dims, dim, axis, zigzag != 0,
            /*blocking=*/true, workspace, workspace_bytes);
}

extern "C" int64_t sprt_all_gather_start(const void *in, void *out,
                                         int64_t elemBytes, int32_t rank,
                                         int64_t d0, int64_t d1, int64_t d2,
                                         int64_t d3, int32_t dim, int32_t axis,
                                         void *workspace,
                                         int64_t workspace_bytes) {
  TraceSpan span("all_gather_start", axis);
  int64_t dims[4] = {d0, d1, d2, d3};
  return allGather(in, out, elemBytes, rank, dims, dim, axis, /*zigzag=*/false,
                   /*blocking=*/false, workspace, workspace_bytes);
}

extern "C" void sprt_reduce_scatter_f32(const float *in, float *out,
                                        int32_t rank, int64_t d0, int64_t d1,
                                        int64_t d2, int64_t d3, int32_t dim,
                                        int32_t axis, int32_t zigzag,
                                        void *workspace,
                                        int64_t workspace_bytes) {
  TraceSpan span("reduce_scatter", axis);
  int64_t n = sprt_axis_size(axis);
  int64_t dims[4] = {d0, d1, d2, d3};
  View full(sizeof(float), rank, dims, dim);
  if (full.mid % (zigzag ? 2 * n : n) != 0)
    throw std::invalid_argument("sprt: reduce_scatter of an indivisible dim");
  // Each rank's strided block (or zigzag part) packed in rank order.
  const bool packing = zigzag || full.outer != 1;
  char *packed =
      takeWorkspace("reduce_scatter", "sprt_reduce_scatter_f32", workspace,
                    workspace_bytes, packing ? full.bytes() : 0);
  int64_t blockBytes = full.bytes() / n;
  countBytes(axis, blockBytes * (n - 1));
  const float *send = in;
  if (zigzag) {
    View part = full;
    part.mid /= n;
    zigzagCopy(packed, reinterpret_cast<char *>(const_cast<float *>(in)), part,
               n, /*toWhole=*/false);
    send = reinterpret_cast<const float *>(packed);
  } else if (full.outer != 1) {
    for (int64_t r = 0; r < n; ++r)
      extractBlock(reinterpret_cast<const char *>(in), full, r, n,
                   packed + r * blockBytes);
    send = reinterpret_cast<const float *>(packed);
  }
  mesh().comm(axis).reduceScatter(
      send, out, blockBytes / int64_t(sizeof(float)), ElemType::F32);
}

extern "C" void sprt_all_reduce_f32(const float *in, float *out, int64_t n,
                                    int32_t kind, int32_t axis) {
  TraceSpan span("all_reduce", axis);
  allReduce(in, out, n, kind, axis, /*blocking=*/true);
}

extern "C" int64_t sprt_all_reduce_start_f32(const float *in, float *out,
                                             int64_t n, int32_t kind,
                                             int32_t axis) {
  TraceSpan span("all_reduce_start", axis);
  return allReduce(in, out, n, kind, axis, /*blocking=*/false);
}

extern "C" int64_t sprt_reduce_scatter_start_f32(const float *in, float *out,
                                                 int64_t n, int32_t axis) {
  TraceSpan span("reduce_scatter_start", axis);
  int64_t size = sprt_axis_size(axis);
  if (n % size != 0)
    throw std::invalid_argument("sprt: reduce_scatter of an indivisible dim");
  countBytes(axis, (n / size) * int64_t(sizeof(float)) * (size - 1));
  auto p = std::make_unique<Pending>();
  p->axis = axis;
  p->request =
      mesh().comm(axis).startReduceScatter(in, out, n / size, ElemType::F32);
  return track(std::move(p), /*blocking=*/false);
}

extern "C" void sprt_local_slice(const void *in, void *out, int64_t elemBytes,
                                 int32_t rank, int64_t d0, int64_t d1,
                                 int64_t d2, int64_t d3, int32_t dim,
                                 int32_t axis, int32_t zigzag) {
  int64_t dims[4] = {d0, d1, d2, d3};
  View full(elemBytes, rank, dims, dim);
  int64_t n = sprt_axis_size(axis);
  if (zigzag) {
    if (full.mid % (2 * n) != 0)
      throw std::invalid_argument("sprt: local_slice of an indivisible dim");
    View part = full;
    part.mid /= n;
    zigzagCopy(static_cast<char *>(out),
               const_cast<char *>(static_cast<const char *>(in)), part, n,
               /*toWhole=*/false, sprt_axis_coord(axis));
    return;
  }
  extractBlock(static_cast<const char *>(in), full, sprt_axis_coord(axis),
               sprt_axis_size(axis), static_cast<char *>(out));
}

extern "C" void sprt_all_to_all(const void *in, void *out, int64_t elemBytes,
                                int32_t rank, int64_t d0, int64_t d1,
                                int64_t d2, int64_t d3, int32_t splitDim,
                                int32_t concatDim, int32_t axis,
                                void *workspace, int64_t workspace_bytes) {
  TraceSpan span("all_to_all", axis);
  int64_t n = sprt_axis_size(axis);
  int64_t dims[4] = {d0, d1, d2, d3};
  View src(elemBytes, rank, dims, splitDim);
  int64_t outDims[4] = {d0, d1, d2, d3};
  outDims[splitDim] /= n;
  outDims[concatDim] *= n;
  View dst(elemBytes, rank, outDims, concatDim);
  // Blocks go out of, and come into, the tensors themselves where they are
  // contiguous (the dimensions before the split / concatenated one all 1),
  // through the workspace otherwise: the packed blocks sent, then those
  // received.
  bool packIn = src.outer != 1, unpackOut = dst.outer != 1;
  char *staged =
      takeWorkspace("all_to_all", "sprt_all_to_all", workspace, workspace_bytes,
                    (packIn ? src.bytes() : 0) + (unpackOut ? src.bytes() : 0));
  int64_t blockBytes = src.bytes() / n;
  countBytes(axis, blockBytes * (n - 1));
  const char *send = static_cast<const char *>(in);
  if (packIn) {
    for (int64_t j = 0; j < n; ++j)
      extractBlock(static_cast<const char *>(in), src, j, n,
                   staged + j * blockBytes);
    send = staged;
  }
  char *recv = unpackOut ? staged + (packIn ? src.bytes() : 0)
                         : static_cast<char *>(out);
  mesh().comm(axis).allToAll(send, recv, blockBytes);
  if (unpackOut)
    for (int64_t r = 0; r < n; ++r)
      insertBlock(recv + r * blockBytes, dst, r, n, static_cast<char *>(out));
}

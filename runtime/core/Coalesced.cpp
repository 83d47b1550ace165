//===- Coalesced.cpp - gradient buckets: coalesced reductions -------------===//
//
// sprt_all_reduce_coalesced and sprt_reduce_scatter_coalesced reduce
// several tensors in one collective, packed into the call's workspace (a
// bucket), in f32 or in bf16 (SPRT_DTYPE_*: half the bytes on the wire; the
// communication layer adds each pair of bf16 values in f32 and rounds the
// sum to bf16, Comm.h).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "Mesh.h"
#include "Trace.h"
#include "Workspace.h"

#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace sprt;

namespace {
/// The communication layer's element type of a coalesced reduction's
/// dtype code; a bf16 all-reduce must sum.
ElemType elemType(int32_t dtype, const char *fn) {
  if (dtype == SPRT_DTYPE_F32)
    return ElemType::F32;
  if (dtype == SPRT_DTYPE_BF16)
    return ElemType::Bf16;
  throw std::invalid_argument(std::string("sprt: ") + fn +
                              " reduces f32 (0) or bf16 (1) elements, got "
                              "dtype " +
                              std::to_string(dtype));
}

/// Copies `bytes` bytes from device to device memory.
void copyBytes(void *dst, const void *src, int64_t bytes) {
  sprt_copy_2d(dst, bytes, src, bytes, bytes, 1, sprt_current_stream());
}

/// Reduces `in` (n elements of `type`) over the axis into `out`: f32 by
/// sprt_all_reduce_f32 (every kind), bf16 by a sum.
void allReduce(const void *in, void *out, int64_t n, ElemType type,
               int32_t kind, int32_t axis) {
  if (type == ElemType::F32) {
    sprt_all_reduce_f32(static_cast<const float *>(in),
                        static_cast<float *>(out), n, kind, axis);
    return;
  }
  int64_t size = sprt_axis_size(axis);
  countBytes(axis, 2 * (n * elemBytes(type) / size) * (size - 1));
  mesh().comm(axis).allReduce(in, out, n, ReduceOp::Sum, type);
}
} // namespace

extern "C" void sprt_all_reduce_coalesced(int32_t count, const void *const *ins,
                                          void *const *outs,
                                          const int64_t *sizes, int32_t dtype,
                                          int32_t kind, int32_t axis,
                                          void *workspace,
                                          int64_t workspace_bytes) {
  TraceSpan span("all_reduce_coalesced", axis);
  const char *fn = "sprt_all_reduce_coalesced";
  ElemType type = elemType(dtype, fn);
  if (type == ElemType::Bf16 && kind != SPRT_SUM)
    throw std::invalid_argument(
        "sprt: sprt_all_reduce_coalesced reduces bf16 by a sum only, got "
        "kind " +
        std::to_string(kind));
  int64_t eb = elemBytes(type), total = 0;
  for (int32_t i = 0; i < count; ++i)
    total += sizes[i];
  // One tensor is reduced straight into its result; several are packed
  // into one bucket (the workspace), reduced in place and unpacked.
  char *buffer = takeWorkspace("all_reduce_coalesced", fn, workspace,
                               workspace_bytes, count > 1 ? total * eb : 0);
  if (count == 1) {
    allReduce(ins[0], outs[0], sizes[0], type, kind, axis);
    return;
  }
  int64_t at = 0;
  for (int32_t i = 0; i < count; ++i) {
    copyBytes(buffer + at, ins[i], sizes[i] * eb);
    at += sizes[i] * eb;
  }
  allReduce(buffer, buffer, total, type, kind, axis);
  at = 0;
  for (int32_t i = 0; i < count; ++i) {
    copyBytes(outs[i], buffer + at, sizes[i] * eb);
    at += sizes[i] * eb;
  }
}

extern "C" void
sprt_reduce_scatter_coalesced(int32_t count, const void *const *ins,
                              void *const *outs, const int64_t *sizes,
                              int32_t dtype, int32_t axis, void *workspace,
                              int64_t workspace_bytes) {
  TraceSpan span("reduce_scatter_coalesced", axis);
  const char *fn = "sprt_reduce_scatter_coalesced";
  ElemType type = elemType(dtype, fn);
  // Rank r's block of every tensor, in order, so that one reduce-scatter
  // leaves each rank its blocks contiguous: the workspace holds them
  // (total elements), then this rank's reduced blocks (total / n). One
  // tensor's blocks are contiguous already: no workspace.
  int64_t n = sprt_axis_size(axis), total = 0, eb = elemBytes(type);
  for (int32_t i = 0; i < count; ++i)
    total += sizes[i];
  char *packed =
      takeWorkspace("reduce_scatter_coalesced", fn, workspace, workspace_bytes,
                    count > 1 ? (total + total / n) * eb : 0);
  countBytes(axis, total / n * (n - 1) * eb);
  if (count == 1) {
    mesh().comm(axis).reduceScatter(ins[0], outs[0], total / n, type);
    return;
  }
  char *mine = packed + total * eb;
  char *at = packed;
  for (int64_t r = 0; r < n; ++r)
    for (int32_t i = 0; i < count; ++i) {
      int64_t block = sizes[i] / n * eb;
      copyBytes(at, static_cast<const char *>(ins[i]) + r * block, block);
      at += block;
    }
  mesh().comm(axis).reduceScatter(packed, mine, total / n, type);
  const char *from = mine;
  for (int32_t i = 0; i < count; ++i) {
    int64_t block = sizes[i] / n * eb;
    copyBytes(outs[i], from, block);
    from += block;
  }
}

namespace {
/// Copies `bytes` bytes of each of `srcs` after one another into `packed`.
void pack(char *packed, const void *const *srcs, const int64_t *bytes,
          int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    copyBytes(packed, srcs[i], bytes[i]);
    packed += bytes[i];
  }
}

/// The (destination, bytes) of each of `count` results.
std::vector<std::pair<void *, int64_t>>
destinations(void *const *outs, const int64_t *bytes, int32_t count) {
  std::vector<std::pair<void *, int64_t>> d;
  for (int32_t i = 0; i < count; ++i)
    d.push_back({outs[i], bytes[i]});
  return d;
}

/// Copies consecutive pieces of `packed` to `to`.
void unpack(const char *packed,
            const std::vector<std::pair<void *, int64_t>> &to) {
  for (const auto &[dst, bytes] : to) {
    copyBytes(dst, packed, bytes);
    packed += bytes;
  }
}
} // namespace

extern "C" int64_t
sprt_all_reduce_coalesced_start(int32_t count, const void *const *ins,
                                void *const *outs, const int64_t *sizes,
                                int32_t dtype, int32_t kind, int32_t axis,
                                void *workspace, int64_t workspace_bytes) {
  TraceSpan span("all_reduce_coalesced_start", axis);
  const char *fn = "sprt_all_reduce_coalesced_start";
  ElemType type = elemType(dtype, fn);
  if (kind != SPRT_SUM)
    throw std::invalid_argument(
        "sprt: sprt_all_reduce_coalesced_start reduces by a sum only, got "
        "kind " +
        std::to_string(kind));
  int64_t eb = elemBytes(type), total = 0;
  std::vector<int64_t> bytes;
  for (int32_t i = 0; i < count; ++i) {
    total += sizes[i];
    bytes.push_back(sizes[i] * eb);
  }
  // The operands are packed now (they may die here); the bucket is reduced
  // in place and unpacked into the results when it completes.
  char *buffer = takeWorkspace("all_reduce_coalesced", fn, workspace,
                               workspace_bytes, total * eb);
  pack(buffer, ins, bytes.data(), count);
  int64_t size = sprt_axis_size(axis);
  countBytes(axis, 2 * (total * eb / size) * (size - 1));
  CommHandle request = mesh().comm(axis).startAllReduce(buffer, buffer, total,
                                                        ReduceOp::Sum, type);
  return trackStarted(
      std::move(request),
      [buffer, to = destinations(outs, bytes.data(), count)]() {
        unpack(buffer, to);
      },
      axis);
}

extern "C" int64_t
sprt_reduce_scatter_coalesced_start(int32_t count, const void *const *ins,
                                    void *const *outs, const int64_t *sizes,
                                    int32_t dtype, int32_t axis,
                                    void *workspace, int64_t workspace_bytes) {
  TraceSpan span("reduce_scatter_coalesced_start", axis);
  const char *fn = "sprt_reduce_scatter_coalesced_start";
  ElemType type = elemType(dtype, fn);
  int64_t n = sprt_axis_size(axis), total = 0, eb = elemBytes(type);
  std::vector<int64_t> blocks;
  for (int32_t i = 0; i < count; ++i) {
    total += sizes[i];
    blocks.push_back(sizes[i] / n * eb);
  }
  // As sprt_reduce_scatter_coalesced packs several: rank r's block of
  // every operand in order, then this rank's reduced blocks.
  char *packed = takeWorkspace("reduce_scatter_coalesced", fn, workspace,
                               workspace_bytes, (total + total / n) * eb);
  char *mine = packed + total * eb;
  char *at = packed;
  for (int64_t r = 0; r < n; ++r)
    for (int32_t i = 0; i < count; ++i) {
      copyBytes(at, static_cast<const char *>(ins[i]) + r * blocks[i],
                blocks[i]);
      at += blocks[i];
    }
  countBytes(axis, total / n * (n - 1) * eb);
  CommHandle request =
      mesh().comm(axis).startReduceScatter(packed, mine, total / n, type);
  return trackStarted(
      std::move(request),
      [mine, to = destinations(outs, blocks.data(), count)]() {
        unpack(mine, to);
      },
      axis);
}

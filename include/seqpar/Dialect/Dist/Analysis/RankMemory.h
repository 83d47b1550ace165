//===- RankMemory.h - one rank's planned device memory ----------*- C++ -*-===//
//
// What a rank's program holds in device memory, read from the IR and its
// arena plan (BufferPlan.h), by the categories the runtime's allocator
// measures (runtime/core/Memory.h):
//
//   parameters       this rank's shard of every tfm.param (the splits of its
//                    layout over the mesh), in the parameter's element type
//   optimizer_state  AdamW's two fp32 moments per tfm.adamw_update, and the
//                    fp32 master slice of an update with `master`, shaped
//                    as the gradient it applies (this replica's slice with
//                    ZeRO-1); none for SGD without master or a forward
//                    program
//   tokens           the function's arguments (input ids and labels)
//   arena            the plan's dist.arena_bytes
//
// and, at the op where the most arena bytes are live (the first such op),
// those bytes by what they hold: activations (values the forward defines,
// before the tfm.backward_begins op), gradients (the backward's values:
// gradients and their temporaries) and workspaces (the bytes the op's kernel
// needs besides its operands and results; none until ops declare them).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_RANKMEMORY_H
#define SEQPAR_DIALECT_DIST_ANALYSIS_RANKMEMORY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace seqpar::dist {

/// The device memory the runtime allocates for a program outside the
/// kernels' own scratch: every figure is one the runtime measures.
struct DeviceBytes {
  int64_t parameters = 0, optimizerState = 0, tokens = 0, arena = 0;
  /// Their sum: all four are live together for the whole run.
  int64_t total = 0;
  /// Whether `arena` is sp-plan-buffers' plan recorded on the function
  /// (otherwise deviceBytes planned a copy of it).
  bool arenaFromPlan = false;
};

/// `func`'s device memory. The arena is `arena` when given (the layout
/// convert-sp-to-runtime made), else the recorded plan, or without one the
/// plan sp-plan-buffers would make for `func` as it is. An error at the op
/// (or the function) whose bytes overflow int64.
mlir::FailureOr<DeviceBytes>
deviceBytes(mlir::func::FuncOp func,
            std::optional<int64_t> arena = std::nullopt);

/// The arena bytes live at the op where the most are.
struct PeakLive {
  int64_t activations = 0, gradients = 0, workspaces = 0;
  /// activations + gradients + workspaces.
  int64_t total = 0;
  /// The op, or null for a function without arena values.
  mlir::Operation *at = nullptr;
  /// The most bytes of forward values live at any op (where the backward
  /// begins, in a train step): the activations' own peak, which recompute
  /// lowers, wherever the step's peak is.
  int64_t mostActivations = 0;
};

/// The peak of `func`'s arena liveness (arenaValues grouped as the planner
/// groups them), split by category.
mlir::FailureOr<PeakLive> peakLive(mlir::func::FuncOp func);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_RANKMEMORY_H

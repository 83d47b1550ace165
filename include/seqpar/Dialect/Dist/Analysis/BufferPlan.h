//===- BufferPlan.h - arena offsets from liveness ---------------*- C++ -*-===//
//
// Every tensor a step computes lives in one arena per rank. sp-plan-buffers
// gives each value an offset so that values live at the same time never
// overlap; the plan is recorded on the IR:
//
//   func.func @train_step(...) attributes {dist.arena_bytes = N : i64,
//                                          dist.arena_max_live = L : i64}
//   %y = tfm.gelu %x {dist.arena_offsets = array<i64: 4096>} : ...
//
// N is the arena's size (the highest byte any value reaches), L the most
// bytes live at any op, a lower bound for every plan.
//
// An op whose runtime kernel needs memory beyond its operands and results
// (WorkspaceOpInterface) gets a workspace in the same arena, live only at
// that op, at the offset it records:
//
//   %y = dist.all_gather_matmul ... {dist.arena_offsets = array<i64: 0>,
//                                    dist.workspace_offset = 8192 : i64}
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_BUFFERPLAN_H
#define SEQPAR_DIALECT_DIST_ANALYSIS_BUFFERPLAN_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace seqpar::dist {

inline constexpr llvm::StringLiteral kArenaOffsetsAttr =
    DistDialect::ArenaOffsetsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArenaBytesAttr =
    DistDialect::ArenaBytesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArenaMaxLiveAttr =
    DistDialect::ArenaMaxLiveAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kWorkspaceOffsetAttr =
    DistDialect::WorkspaceOffsetAttrHelper::getNameStr();
/// Every offset is a multiple of this many bytes.
inline constexpr int64_t kArenaAlign = 64;

/// A value the arena holds and the ops (indices in the function body) from
/// the one that writes it to the last that reads it; results the function
/// returns live to its end. Or the workspace of op `workspaceOf`: no value,
/// live at that op only.
struct LiveValue {
  mlir::Value value;
  int64_t start, end, bytes;
  mlir::Operation *workspaceOf = nullptr;
  /// The copies `bytes` holds (each kArenaAlign-aligned): a pipeline
  /// stage's loop keeps a forward value its backward reads once per
  /// micro-batch in flight (MicroBatchLoopOp::stashSlots), live for the
  /// whole loop.
  int64_t slots = 1;
  bool overlapsInTime(const LiveValue &o) const {
    return start <= o.end && o.start <= end;
  }
  bool isWorkspace() const { return workspaceOf != nullptr; }
  /// The op that writes the value, or whose workspace it is.
  mlir::Operation *getOwner() const {
    return workspaceOf ? workspaceOf : value.getDefiningOp();
  }
};

/// The ops of `func` in the order the arena sees them (the indices of
/// LiveValue::start and end): each op, then the body of a
/// tfm.micro_batch_loop (planned once, its bytes reused by every
/// micro-batch), then the ops after it. Fails on other region ops.
mlir::FailureOr<llvm::SmallVector<mlir::Operation *>>
arenaOrder(mlir::func::FuncOp func);

/// The bytes of `op`'s workspace (WorkspaceOpInterface), 0 if it has none.
int64_t workspaceBytes(mlir::Operation *op);

/// The bytes of a tensor value whose size is known to fit in int64 (the
/// verifiers of tfm and dist ops and arenaValues check it).
int64_t tensorBytes(mlir::Value v);

/// `bytes` rounded up to a multiple of kArenaAlign, or std::nullopt when
/// that overflows int64.
std::optional<int64_t> alignArena(int64_t bytes);

/// The operand whose bytes result `r` may take over when that operand dies
/// at r's op: the one its op's InPlaceOpInterface names (a kernel that works
/// in place: all-reduces, scaling), when the result has the operand's size.
/// None otherwise.
std::optional<unsigned> inPlaceOperand(mlir::OpResult r);

/// The wait point of an async collective (a coalesced reduction with
/// `async`): the first op of its block reading one of its results, where it
/// completes; null for any other op. Its workspace is live from the op to
/// there (arenaValues), and the lowering waits for it there.
mlir::Operation *asyncWaitPoint(mlir::Operation *op);

/// Whether `v` (defined at `v.start`) reuses the bytes of `operand`, which
/// dies at the same op: a legal overlap (never for a stash).
bool takesOver(const LiveValue &v, const LiveValue &operand);

/// The arena values of a single-block function (every op result except
/// parameter references, and every op's non-empty workspace, after the op's
/// results), in the order they are defined. A stash (LiveValue::slots > 1)
/// spans its loop, its bytes every copy's. An error at the op of a result
/// whose size overflows int64.
mlir::FailureOr<llvm::SmallVector<LiveValue>>
arenaValues(mlir::func::FuncOp func);

/// Groups `values` into buffers: a value that takes over the bytes of an
/// operand dying at its op (an in-place all-reduce or scaling) joins that
/// operand's buffer, which then spans both; `bufferOf[i]` is value i's.
/// sp-plan-buffers places buffers, and the most bytes live are theirs.
llvm::SmallVector<LiveValue>
groupInPlace(llvm::ArrayRef<LiveValue> values,
             llvm::SmallVectorImpl<unsigned> &bufferOf);

/// The most bytes live at any op, or std::nullopt when a sum overflows
/// int64.
std::optional<int64_t> maxLiveBytes(llvm::ArrayRef<LiveValue> values);

/// Plans `func`'s arena as sp-plan-buffers does (the pass runs this on every
/// function) and records the plan on it; an error at the op that cannot be
/// placed.
mlir::LogicalResult planArena(mlir::func::FuncOp func);

/// The offsets recorded on `func` by sp-plan-buffers, checked: every arena
/// value and every workspace has one, aligned, inside the arena, and no two
/// live at the same time share a byte (a diagnostic at the op otherwise).
/// The values' offsets; an empty map when the function has no plan (the
/// workspaces' offsets, checked too, are read with workspaceOffset).
mlir::FailureOr<llvm::DenseMap<mlir::Value, int64_t>>
readBufferPlan(mlir::func::FuncOp func);

/// The offset `op`'s workspace has in its function's plan, if recorded.
std::optional<int64_t> workspaceOffset(mlir::Operation *op);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_BUFFERPLAN_H

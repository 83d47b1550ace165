//===- SpReport.h - sp-report's pieces, shared by its files -----*- C++ -*-===//
//
// sp-report (SpReport.cpp) writes one JSON object; the memory report's
// contents come from SpReportMemory.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_SPREPORT_H
#define SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_SPREPORT_H

#include "seqpar/Dialect/Common/SeqparChoices.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <optional>

namespace seqpar::dist {

/// Adds `bytes` to `total`, or an error at `op` when either is unknown
/// (negative) or the sum overflows int64; `what` names the count.
mlir::LogicalResult addBytes(int64_t &total, std::optional<int64_t> bytes,
                             mlir::Operation *op, llvm::StringRef what);

/// How many times `op` runs in a step: once per micro-batch in a
/// micro-batch loop's body, else once.
int64_t executionsPerStep(mlir::Operation *op);

/// The memory report's fields, added to `report` (sorted by the JSON
/// writer): the policy, per-layer and total activation accounting (the IR's
/// and the paper's, without recompute and under `paperPolicy`, by default
/// the module's tfm.recompute), FLOPs and the extra fraction recompute
/// costs, and the per-rank peak from the plan.
mlir::LogicalResult memoryReport(mlir::ModuleOp module,
                                 std::optional<RecomputePolicy> paperPolicy,
                                 llvm::json::Object &report);

/// The functions the program runs: the train step(s), else the forward(s)
/// (one per pipeline stage, in stage order), else a module's only function;
/// empty if none (SpReportMemory.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>>
programFunctions(mlir::ModuleOp module);

/// The comm report's entry of one pipeline stage's function `func` of
/// `program` (every stage's, in stage order): its collectives grouped by op
/// and axis (count and bytes sent) and its point-to-point traffic per
/// micro-batch and in the weight-gradient exchange (SpReportStages.cpp).
mlir::FailureOr<llvm::json::Object>
stageCommReport(mlir::func::FuncOp func,
                llvm::ArrayRef<mlir::func::FuncOp> program);

} // namespace seqpar::dist

#endif // SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_SPREPORT_H

//===- SpReport.h - sp-report's pieces, shared by its files -----*- C++ -*-===//
//
// sp-report (SpReport.cpp) writes one JSON object; the memory report's
// contents come from SpReportMemory.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_SPREPORT_H
#define SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_SPREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <optional>

namespace seqpar::dist {

/// Adds `bytes` to `total`, or an error at `op` when either is unknown
/// (negative) or the sum overflows int64; `what` names the count.
mlir::LogicalResult addBytes(int64_t &total, std::optional<int64_t> bytes,
                             mlir::Operation *op, llvm::StringRef what);

/// The memory report's fields, added to `report` (sorted by the JSON
/// writer): the policy, per-layer and total activation accounting (the IR's
/// and the paper's, without recompute and under `paperPolicy`), FLOPs and
/// the extra fraction recompute costs, and the per-rank peak from the plan.
mlir::LogicalResult memoryReport(mlir::ModuleOp module,
                                 llvm::StringRef paperPolicy,
                                 llvm::json::Object &report);

} // namespace seqpar::dist

#endif // SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_SPREPORT_H

//===- Candidate.h - one layout compiled for its facts ----------*- C++ -*-===//
//
// A candidate layout is compiled by the real pipeline (lib/Pipelines, up to
// and including sp-plan-buffers, as `sp-compile --train --report memory`
// runs it) and read back: its memory report (the same JSON, so the same
// bytes) and, from the planned IR, each stage's FLOPs by op class and each
// collective's bytes per mesh axis. A layout the compiler rejects is
// rejected with the compiler's own diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_CANDIDATE_H
#define SEQPAR_TOOLS_SP_PLAN_CANDIDATE_H

#include "CostModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace seqpar::plan {

struct Layout {
  int64_t tp = 1, cp = 1, pp = 1, dp = 1, zero = 0, microBatches = 1;
  bool sp = false;
  std::string recompute = "none";
  /// With cp > 1: "allgather" (keys and values all-gathered) or "ring".
  std::string cpAttention = "allgather";

  /// Short name, e.g. "tp2 sp dp2 z1 mb4 sel".
  std::string name() const;
  /// sp-compile's flags for this layout (precision and the overlap of
  /// gradient reductions explicit, no --target: the planned memory is the
  /// same on every target with these flags).
  std::vector<std::string> compileFlags(llvm::StringRef precision) const;
};

struct CompileResult {
  /// Empty when the compiler accepted the layout; else its first error.
  std::string rejection;
  /// The memory report (sp-report memory's JSON object).
  llvm::json::Object memory;
  Mesh mesh;
  std::vector<StageFacts> stages;
  /// Composed from two shallower compiles (Compose.h), not compiled whole.
  bool composed = false;
  /// Composed, near the memory limit and not compiled whole (the caller
  /// did not need to know whether it fits): its peak decides nothing.
  bool fitUndecided = false;

  /// The memory report's per-rank peak (the worst stage's) and its total;
  /// only for an accepted layout.
  const llvm::json::Object &peak() const {
    return *memory.getObject("per_rank_peak_bytes");
  }
  int64_t peakTotal() const { return *peak().getInteger("total"); }
  /// Each pipeline stage's per-rank total, first stage first (one entry
  /// without a pipeline).
  std::vector<int64_t> stagePeakTotals() const {
    const llvm::json::Array *s = memory.getArray("stages");
    if (!s)
      return {peakTotal()};
    std::vector<int64_t> totals;
    for (const llvm::json::Value &stage : *s)
      totals.push_back(*stage.getAsObject()
                            ->getObject("per_rank_peak_bytes")
                            ->getInteger("total"));
    return totals;
  }
};

/// Compiles `layout` of `model` (which it clones) with `precision` and
/// `fuseChunks`, gradient reductions overlapped; the context's other
/// diagnostics are captured, not printed.
CompileResult compileCandidate(mlir::ModuleOp model, const Layout &layout,
                               llvm::StringRef precision, int64_t fuseChunks);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_CANDIDATE_H

//===- Search.h - the layouts of a cluster, compiled and ranked -*- C++ -*-===//
//
// sp-plan's search at one sequence length: every tp x cp x pp x dp of the
// cluster's GPUs with SP, ZeRO-1, both cp attentions, the recompute
// policies and the micro-batch counts, compiled (CandidateCompiler),
// rejected with the compiler's diagnostic or by how much memory it misses,
// and ranked by predicted step time (CostModel.h). The pruning rules are in
// docs/planner.md.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_SEARCH_H
#define SEQPAR_TOOLS_SP_PLAN_SEARCH_H

#include "Bound.h"

#include <map>

namespace seqpar::plan {

struct Ranked {
  Layout layout;
  Prediction prediction;
  llvm::json::Object peak;         // the worst stage's per_rank_peak_bytes
  std::vector<int64_t> stagePeaks; // each stage's total, first stage first
  bool composed = false;
  /// Its lower bound (Bound.h).
  double bound = 0;
};

struct SearchOptions {
  int64_t seqLen = 0, globalBatch = 0, maxMicroBatches = 16;
  /// The model's layer count (0: unknown, no bound).
  int64_t layers = 0;
  int64_t maxCompiles = 1000, fuseChunks = 2;
  /// The rows that are shown: each compiled whole.
  size_t top = 10;
  double peakFlops = 0;
  Calibration calibration;
  /// Compile each group's leanest variant first and skip the group when it
  /// does not fit.
  bool leanFirst = true;
  /// Branch and bound (Bound.h): a variant whose lower bound is at least
  /// the `top`-th fastest prediction so far is not compiled. Off: every
  /// variant is compiled and each prediction checked against its bound.
  bool bound = true;
  /// Restrictions: a tp, cp or pp degree (0: every one), a recompute
  /// policy ("": every one), the micro-batch counts (empty: powers of two
  /// up to maxMicroBatches).
  int64_t tp = 0, cp = 0, pp = 0;
  std::string recompute;
  std::vector<int64_t> microBatches;
};

struct SearchResult {
  /// Fastest first.
  std::vector<Ranked> ranked;
  /// Reason -> layouts rejected for it (in order).
  std::map<std::string, std::vector<std::string>> rejected;
  int64_t compiled = 0, dominated = 0, capped = 0, skipped = 0;
  /// Groups whose leanest variant did not fit: none of theirs was tried.
  int64_t leanRejected = 0;
  /// Variants not compiled: their lower bound is not below the `top`-th
  /// fastest prediction. Compiles spent on the bounds, and (tp, SP, cp,
  /// attention) without one.
  int64_t bounded = 0, boundCompiles = 0, unbounded = 0;
  /// Probe compiles (a dp or pp alone), and layouts rejected without a
  /// compile by a rejection of one of their axes alone.
  int64_t probeCompiles = 0, probeRejected = 0;
  /// Predictions below their own lower bound and layouts compiled although
  /// an axis of theirs was rejected alone (broken assumptions of the
  /// pruning), with the first one.
  int64_t boundViolations = 0;
  std::string firstViolation;
};

llvm::Expected<SearchResult> searchLayouts(CandidateCompiler &compiler,
                                           const Cluster &cluster,
                                           const SearchOptions &options);

/// Bytes as "1.50 GiB".
std::string bytesText(int64_t bytes);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_SEARCH_H

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

#include "CandidateCompiler.h"

#include <map>

namespace seqpar::plan {

struct Ranked {
  Layout layout;
  Prediction prediction;
  llvm::json::Object peak;         // the worst stage's per_rank_peak_bytes
  std::vector<int64_t> stagePeaks; // each stage's total, first stage first
  bool composed = false;
};

struct SearchOptions {
  int64_t seqLen = 0, globalBatch = 0, maxMicroBatches = 16;
  int64_t maxCompiles = 1000, fuseChunks = 2;
  /// The rows that are shown: each compiled whole.
  size_t top = 10;
  double peakFlops = 0;
  Calibration calibration;
  /// Compile each group's leanest variant first and skip the group when it
  /// does not fit.
  bool leanFirst = true;
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
};

llvm::Expected<SearchResult> searchLayouts(CandidateCompiler &compiler,
                                           const Cluster &cluster,
                                           const SearchOptions &options);

/// Bytes as "1.50 GiB".
std::string bytesText(int64_t bytes);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_SEARCH_H

//===- MaxSeq.h - the longest sequence any layout trains ---------*- C++
//-*-===//
//
// sp-plan --max-seq (issue 32, item 4): for a model, a GPU count and their
// memory, the longest sequence (a multiple of --seq-block) that some layout
// trains, found with the compiler's own memory plan. Each layout is tried
// with the settings that keep the least memory (SP, ZeRO-1, full recompute,
// one or the most micro-batches), with both cp attentions, and searched upwards
// from the longest sequence found so far; the answer is then checked one
// block up, where every layout is compiled again. docs/planner.md.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_MAXSEQ_H
#define SEQPAR_TOOLS_SP_PLAN_MAXSEQ_H

#include "Candidate.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>

namespace seqpar::plan {

/// The layouts of `gpus` GPUs with memory's cheapest settings: tp x cp x pp
/// x dp = gpus, SP where tp > 1, ZeRO-1 where dp x cp > 1, full recompute,
/// both cp attentions, and one micro-batch and the most (a power of two up
/// to `maxMicroBatches`) that leave each one a batch dp divides. A layout
/// no micro-batch count suits is left out (dp does not divide the batch).
std::vector<Layout> leanLayouts(int64_t gpus, int64_t globalBatch,
                                int64_t maxMicroBatches);

/// One layout compiled at one sequence length.
struct SeqFit {
  Layout layout;
  int64_t seq = 0;
  int64_t total = 0;
  CompileResult result;
};

struct MaxSeqResult {
  /// The longest sequence that fits, 0 if not even one block does.
  int64_t seq = 0;
  /// The layouts that fit at `seq` (compiled there).
  std::vector<SeqFit> fits;
  int64_t compiled = 0;
  /// seq + block, where every layout was compiled again: how many fit
  /// (0 unless the search's monotonicity failed), how many the compiler
  /// rejected there, and the closest miss.
  int64_t next = 0, nextCompiled = 0, nextRejected = 0;
  std::vector<std::string> nextFits;
  std::optional<SeqFit> closest;
  /// Set when the model refuses a longer sequence (the importer's error).
  std::string modelLimit;
  /// Compiler rejection -> "layout at seq S" (first failures only).
  std::map<std::string, std::vector<std::string>> rejected;
};

/// Compiles `layout` at sequence `seq`; an Error means the model cannot be
/// imported at that length (which bounds the search).
using SeqCompiler =
    llvm::function_ref<llvm::Expected<CompileResult>(const Layout &, int64_t)>;

/// Searches the longest sequence, a multiple of `block` up to `limit`, that
/// one of `layouts` fits in `memoryBytes` per GPU.
MaxSeqResult findMaxSeq(llvm::ArrayRef<Layout> layouts, int64_t block,
                        int64_t limit, int64_t memoryBytes,
                        SeqCompiler compile);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_MAXSEQ_H

//===- CandidateCompiler.h - candidates compiled or composed ----*- C++ -*-===//
//
// Imports the model once per (sequence, batch, layer count) and compiles
// candidates: in full, or, where a stage has at least k + 2 layers, from
// two compiles with k and k + 1 layers per stage (Compose.h). The composed
// peak is a lower bound (docs/planner.md), so a layout it puts over the
// memory does not fit; one within `margin` of the GPU's memory is compiled
// whole instead. A layout the compiler rejects at depth k is rejected with
// that diagnostic: the splits it checks do not depend on the depth.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_CANDIDATECOMPILER_H
#define SEQPAR_TOOLS_SP_PLAN_CANDIDATECOMPILER_H

#include "Candidate.h"

#include <functional>
#include <map>
#include <tuple>

namespace seqpar::plan {

class CandidateCompiler {
public:
  struct Options {
    std::string config, source, precision;
    int64_t fuseChunks = 2;
    /// k: 0 compiles every candidate in full.
    int64_t composeLayers = 0;
    int64_t memoryBytes = 0;
    double margin = 0.10;
    /// Also compile every composed candidate whole and compare.
    bool check = false;
  };
  /// What the checks found: composed figures compared with whole compiles.
  struct CheckStats {
    int64_t checked = 0, equal = 0;
    /// Stage peaks composed below and above the whole compile's, and the
    /// largest difference each way as a fraction of the whole compile's.
    int64_t under = 0, over = 0;
    /// Composed FLOPs or bytes per axis unlike the whole compile's, and
    /// layouts the whole compile rejected.
    int64_t mismatches = 0;
    double maxUnder = 0, maxOver = 0;
    /// The largest differences of a total peak, largest first: (fraction,
    /// "layout: stage composed vs whole"); and any other mismatch (FLOPs,
    /// bytes, a rejection) the same way, with fraction 1.
    std::vector<std::pair<double, std::string>> examples;
  };
  /// One worker per context: two compiles that do not depend on each
  /// other (a composition's two depths, a bound's pairs) run at once, one
  /// per worker, each on its own context and its own imported models.
  CandidateCompiler(llvm::ArrayRef<mlir::MLIRContext *> contexts,
                    Options options, int64_t layers)
      : contexts(contexts.begin(), contexts.end()), models(contexts.size()),
        options(std::move(options)), layers(layers) {}

  /// `layout` of one micro-batch of `batch` sequences of `seq` tokens,
  /// composed where it can be; an Error if the model cannot be imported.
  /// A composed peak near the memory is compiled whole unless `needWhole`
  /// says, from the composed figures, that its fit does not matter.
  llvm::Expected<CompileResult>
  compile(const Layout &layout, int64_t seq, int64_t batch,
          const std::function<bool(const CompileResult &)> &needWhole = {});
  /// The same, always compiled whole.
  llvm::Expected<CompileResult> compileFull(const Layout &layout, int64_t seq,
                                            int64_t batch);
  /// `layout` compiled whole on the model with `modelLayers` layers.
  llvm::Expected<CompileResult> compileAt(const Layout &layout, int64_t seq,
                                          int64_t batch, int64_t modelLayers) {
    return compileOn(0, {layout, seq, batch, modelLayers});
  }
  /// What compileAt takes.
  struct Job {
    Layout layout;
    int64_t seq = 0, batch = 0, modelLayers = 0;
  };
  /// Two compiles, at once when there are two workers.
  std::pair<llvm::Expected<CompileResult>, llvm::Expected<CompileResult>>
  compilePair(const Job &a, const Job &b);
  /// Two layouts (each with the batch of its micro-batch) compiled whole,
  /// at once when there are two workers.
  std::pair<llvm::Expected<CompileResult>, llvm::Expected<CompileResult>>
  compileFullPair(const Layout &a, int64_t batchA, const Layout &b,
                  int64_t batchB, int64_t seq) {
    fullCount += 2;
    return compilePair({a, seq, batchA, layers}, {b, seq, batchB, layers});
  }
  /// Forgets the models of every other sequence length.
  void keepOnly(int64_t seq);

  int64_t composedCount = 0, fullCount = 0, nearLimitCount = 0;
  /// Candidates rejected by the compiler on a shallow model.
  int64_t shallowRejected = 0;
  /// Every compile, shallow ones included, and the layers they held.
  int64_t compiles = 0, layersCompiled = 0;
  CheckStats checks;

private:
  void check(const Layout &layout, const CompileResult &composed,
             const CompileResult &whole);

  /// Compiles `job` on worker `worker`'s context; touches no counter.
  llvm::Expected<CompileResult> compileOn(size_t worker, const Job &job);

  std::vector<mlir::MLIRContext *> contexts;
  /// Each worker's imported models.
  std::vector<std::map<std::tuple<int64_t, int64_t, int64_t>,
                       mlir::OwningOpRef<mlir::ModuleOp>>>
      models;
  Options options;
  int64_t layers;
};

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_CANDIDATECOMPILER_H

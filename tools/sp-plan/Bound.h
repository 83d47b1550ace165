//===- Bound.h - a lower bound on a layout's step time ----------*- C++ -*-===//
//
// sp-plan's branch and bound: before a layout is compiled, a lower bound on
// the step time the cost model (CostModel.h) would predict for it. Every
// layer of a stage does, per sequence a rank processes, the same work: a
// layer's FLOPs, memory-bound bytes and tp / cp bytes grow as
// (weights' part) + (sequences x each sequence's part). Four compiles of the
// layout's (tp, SP, cp, attention, recompute policy) alone (pp 1, dp 1,
// ZeRO 0, one micro-batch; 1 and 2 layers x 1 and 2 sequences) give each
// sequence's part of one layer exactly, as their double difference. A
// stage of n layers whose ranks see S sequences a step does at least n x S
// times that work, whatever its pp, dp, ZeRO stage and micro-batch count
// (they only add work: weights, the optimizer, the first and last stage's
// embedding and head, gradient reductions, latencies); the bound is that
// work's time in the cost model, stretched by the layout's pipeline
// bubble. Without recompute the bound is the smallest: recompute only adds
// work. docs/planner.md has the rest.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_BOUND_H
#define SEQPAR_TOOLS_SP_PLAN_BOUND_H

#include "CandidateCompiler.h"

#include <map>
#include <optional>
#include <tuple>

namespace seqpar::plan {

class StepBound {
public:
  struct Options {
    int64_t seqLen = 0, globalBatch = 0, layers = 0, fuseChunks = 2;
    double peakFlops = 0;
    Calibration calibration;
  };
  StepBound(CandidateCompiler &compiler, const Cluster &cluster,
            Options options)
      : compiler(compiler), cluster(cluster), o(std::move(options)) {}

  /// A lower bound on the predicted step time of `layout` (with its
  /// recompute policy) with `microBatches` micro-batches; 0 when the four
  /// compiles could not give one (the compiler rejected the smaller
  /// layout or the model, or a part came out negative).
  llvm::Expected<double> lowerBound(const Layout &layout, int64_t microBatches);

  /// The compiler's diagnostic for `layout`'s (tp, SP, cp, attention,
  /// recompute) alone, empty if it compiled. A layout with them is rejected
  /// too: the splits the compiler checks only grow with the other axes.
  llvm::Expected<std::string> rejection(const Layout &layout);

  /// Compiles spent on the bounds, and the (tp, SP, cp, attention) with no
  /// bound.
  int64_t compiles = 0, unbounded = 0;

private:
  /// For `layout`'s (tp, SP, cp, attention): the seconds of one layer's
  /// work for one sequence in the cost model (nullopt if there is none),
  /// and the compiler's diagnostic if it rejected them.

  CandidateCompiler &compiler;
  const Cluster &cluster;
  Options o;
  struct Entry {
    std::optional<double> seconds;
    std::string rejection;
  };
  llvm::Expected<const Entry *> entry(const Layout &layout);
  std::map<std::tuple<int64_t, bool, int64_t, std::string, std::string>, Entry>
      cache;
};

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_BOUND_H

//===- Compose.h - a deep model's facts from two shallow ones ---*- C++ -*-===//
//
// Issue 32, item 2: every layer of a stage adds the same parameters,
// gradients, optimizer state, saved activations, FLOPs and collective
// bytes, so a candidate's figures for n layers per stage follow from two
// compiles of the same layout with k and k + 1 layers per stage:
// f(n) = f(k + 1) + (n - k - 1) x (f(k + 1) - f(k)). What is not a sum of
// layers is where the arena's greedy packing leaves gaps; sp-plan
// therefore compiles in full every layout it shows, and every layout whose
// composed peak is near the GPU's memory (docs/planner.md).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_COMPOSE_H
#define SEQPAR_TOOLS_SP_PLAN_COMPOSE_H

#include "Candidate.h"

namespace seqpar::plan {

/// The compile of n = k + 1 + `steps` layers per stage, from `shallow`
/// (k per stage) and `deeper` (k + 1): every integer of the memory report
/// and of each stage's facts extrapolated; strings, and arrays whose
/// lengths differ, are `deeper`'s. The report's top-level peak is the
/// composed stage with the largest total, as sp-report's is.
CompileResult compose(const CompileResult &shallow, const CompileResult &deeper,
                      int64_t steps);

/// `config` (an HF config.json's text) with its layer count set to `layers`
/// (n_layer or num_hidden_layers, whichever it has); an error if neither.
llvm::Expected<std::string> withLayerCount(llvm::StringRef config,
                                           int64_t layers);

/// The layer count of `config` (n_layer or num_hidden_layers).
llvm::Expected<int64_t> layerCount(llvm::StringRef config);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_COMPOSE_H

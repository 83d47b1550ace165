//===- Cluster.h - the machines sp-plan plans for ---------------*- C++ -*-===//
//
// A cluster description (examples/clusters/*.json, docs/planner.md): nodes
// of identical GPUs, each GPU's memory and peak FLOP/s per dtype, and the
// two links a collective can run over (inside a node, between nodes).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_CLUSTER_H
#define SEQPAR_TOOLS_SP_PLAN_CLUSTER_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace seqpar::plan {

/// One link: the bytes per second one GPU sends on it (unidirectional, what
/// a ring collective's step is bound by) and the latency of one collective.
struct Link {
  double bytesPerSecond = 0;
  double latencySeconds = 0;
};

/// How a GPU runs a GEMM: output tiles of tileRows x tileCols (or the
/// transpose, whichever wastes less), one tile per SM at a time, in waves
/// over `sms` SMs (NVIDIA's Matrix Multiplication Background User's Guide,
/// "Dimension Quantization Effects"), each wave at `efficiency` of peak.
/// Unset: the rate is the same for every shape.
struct GemmWaves {
  int64_t sms = 0, tileRows = 0, tileCols = 0;
  double efficiency = 0;
};

struct Cluster {
  std::string name;
  int64_t nodes = 0;
  int64_t gpusPerNode = 0;
  int64_t memoryBytes = 0;
  /// Peak dense FLOP/s of one GPU by precision name (bf16, fp16, fp32).
  llvm::StringMap<double> peakFlops;
  /// One GPU's memory bandwidth (HBM), bytes per second.
  double memoryBytesPerSecond = 0;
  Link intraNode, interNode;
  std::optional<GemmWaves> gemmWaves;
  /// CPU ranks that outnumber their node's cores and yield them while they
  /// wait ("shared_cores": {"cores": C, "solo_speedup": S}): a rank busy
  /// alone runs S times as fast as when every rank of its node is busy,
  /// the rates above being the latter's (sp-plan --calibrate measures
  /// both). Unset: every rank is a device of its own.
  std::optional<double> soloSpeedup;

  int64_t gpus() const { return nodes * gpusPerNode; }
};

/// Reads a cluster description; errors name the file and the field.
llvm::Expected<Cluster> parseCluster(llvm::StringRef json,
                                     llvm::StringRef source);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_CLUSTER_H

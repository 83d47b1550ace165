//===- Calibrate.h - sp-plan --calibrate ------------------------*- C++ -*-===//
//
// Measures this machine's rates on R CPU ranks and writes what the planner
// reads: a cluster description of one node of R ranks and a calibration.
// sp-calibrate (tools/sp-calibrate) does the measuring under the launcher
// (mpirun); fitCalibration turns its figures into the two files' contents
// (docs/planner.md, "Calibrating on this machine", says how).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_CALIBRATE_H
#define SEQPAR_TOOLS_SP_PLAN_CALIBRATE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace seqpar::plan {

struct CalibrationFiles {
  llvm::json::Object cluster, calibration;
};

/// Fits the cluster and the calibration from sp-calibrate's figures
/// (`measured`, named `source` in errors), for nodes of its ranks with
/// `memoryBytes` each:
/// - peak_flops.fp32: the fastest GEMM measured; calibration.gemm: the
///   median GEMM's rate over it;
/// - calibration.attention: attention's FLOPs (forward and backward, counted
///   as the compiler counts them) over its time, over the peak;
/// - hbm_bytes_per_second: the copy's rate; calibration.memory_ops: each
///   memory-bound kernel's bytes over its time, over the copy's rate;
///   calibration.memory: all of theirs together;
/// - calibration.ring_attention (where measured on more than one rank): its
///   FLOPs over its time less the link's time for its bytes;
/// - intra_node and inter_node (one node: the same link): latency and
///   bandwidth by least squares over the collectives, seconds = latency +
///   bytes sent / bandwidth.
llvm::Expected<CalibrationFiles> fitCalibration(llvm::StringRef measured,
                                                llvm::StringRef source,
                                                int64_t memoryBytes);

/// Runs `launcher` -np `ranks` `worker` into `dir`/measured.json and writes
/// `dir`/cluster.json and `dir`/calibration.json from it.
llvm::Error calibrate(llvm::StringRef launcher, llvm::StringRef worker,
                      int64_t ranks, llvm::StringRef dir);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_CALIBRATE_H

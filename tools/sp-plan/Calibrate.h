//===- Calibrate.h - sp-plan --calibrate ------------------------*- C++ -*-===//
//
// Measures this machine's rates on R ranks (CPU ranks, or GPUs with
// sp-calibrate-cuda) and writes what the planner reads: a cluster
// description of one node of R ranks and a calibration.
// sp-calibrate (tools/sp-calibrate) does the measuring under the launcher
// (mpirun); fitCalibration turns its figures into the two files' contents
// (docs/planner.md, "Calibrating on this machine", says how).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_CALIBRATE_H
#define SEQPAR_TOOLS_SP_PLAN_CALIBRATE_H

#include "Cluster.h"

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
/// - peak_flops per precision: the peak given to sp-calibrate (--peak),
///   else the fastest GEMM measured in it; calibration.gemm: the median
///   GEMM's rate over its precision's peak;
/// - calibration.attention: attention's FLOPs (forward and backward, counted
///   as the compiler counts them) over its time, over its precision's peak;
/// - hbm_bytes_per_second: the copy's rate; calibration.memory_ops: each
///   memory-bound kernel's bytes over its time, over the copy's rate;
///   calibration.memory: all of theirs together;
/// - calibration.ring_attention (where measured on more than one rank): its
///   FLOPs over its time less the link's time for its bytes;
/// - intra_node and inter_node (one node: the same link; one rank: none):
///   latency and bandwidth by least squares over the collectives, seconds =
///   latency + bytes sent / bandwidth;
/// - memory_bytes: measured.json's device_memory_bytes, else `memoryBytes`.
///
/// With `waves` (a GPU cluster's wave model), calibration.gemm is the
/// whole-wave efficiency the planner multiplies by each GEMM's wave
/// efficiency: the median GEMM's rate over its precision's peak and over
/// the wave efficiency of its output (m x n, m x k for the input gradient,
/// k x n for the weight gradient), so that the quantization the
/// measurements hold is not counted twice.
llvm::Expected<CalibrationFiles>
fitCalibration(llvm::StringRef measured, llvm::StringRef source,
               int64_t memoryBytes, const GemmWaves *waves = nullptr);

/// Runs `launcher` -np `ranks` `worker` `measured` (sp-calibrate writes its
/// figures to `measured`).
llvm::Error measure(llvm::StringRef launcher, llvm::StringRef worker,
                    int64_t ranks, llvm::StringRef measured);

/// Writes `dir`/cluster.json and `dir`/calibration.json fitted from the
/// figures in file `measured` (memory: measured.json's device memory per
/// rank, else this machine's over its ranks), each whole or not at all.
/// With a `base` cluster file (the cluster the measured device belongs
/// to), the cluster written is the base with what was measured in its
/// place (peaks, memory bandwidth, memory, the links measured) and the
/// GEMMs are fitted to its wave model.
llvm::Error writeCalibration(llvm::StringRef measured, llvm::StringRef dir,
                             llvm::StringRef base = "");

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_CALIBRATE_H

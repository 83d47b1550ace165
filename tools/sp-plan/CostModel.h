//===- CostModel.h - sp-plan's step-time model ------------------*- C++ -*-===//
//
// The step time of one layout, from facts the compiler counted in that
// layout's compiled program (StageFacts) and the cluster's published rates.
// Every formula and assumption is in docs/planner.md; the pieces are
// separate functions so that each is tested on its own
// (unittests/Plan/CostModelTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_SP_PLAN_COSTMODEL_H
#define SEQPAR_TOOLS_SP_PLAN_COSTMODEL_H

#include "Cluster.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace seqpar::plan {

/// How the attention kernels being modelled treat the score matrix.
enum class AttentionScores {
  /// Fused (flash attention, cuDNN, seqpar's kernels): the scores stay on
  /// chip; attention costs its FLOPs.
  fused,
  /// Materialized (Megatron-LM's core attention of 2022: baddbmm, the fused
  /// scale-mask-softmax, dropout, bmm): every score is written to and read
  /// back from memory, materializedScoreBytes a score.
  materialized,
};

/// The fraction of peak FLOP/s each op class reaches (--calibration FILE
/// overrides; docs/planner.md gives the defaults' reasons).
struct Calibration {
  /// A GEMM's fraction of peak: of every GEMM's, or where the cluster has a
  /// wave model, of a GEMM filling whole waves; unset: the wave model's
  /// efficiency, else kDefaultGemm.
  std::optional<double> gemm;
  static constexpr double kDefaultGemm = 0.70;
  double attention = 0.50;
  /// Ring attention (dist.ring_attention and its gradient): its FLOPs'
  /// fraction of peak with its traffic modelled apart; unset: attention's.
  std::optional<double> ringAttention;
  /// The fraction of the GPU's memory bandwidth memory-bound ops reach.
  double memory = 0.80;
  /// Per memory-bound op ("tfm.gelu"): its own fraction, where measured.
  llvm::StringMap<double> memoryByOp;
  /// The attention kernels' scores; materialized, their traffic
  /// (StageFacts::attentionScoreBytes) runs at `memory`'s bandwidth.
  AttentionScores attentionScores = AttentionScores::fused;

  double ring() const { return ringAttention.value_or(attention); }
  double memoryOf(llvm::StringRef op) const {
    auto it = memoryByOp.find(op);
    return it == memoryByOp.end() ? memory : it->second;
  }
};

/// Reads a calibration file: {"gemm": E, "attention": E, "ring_attention":
/// E, "memory": E, "memory_ops": {"tfm.gelu": E, ...}, "attention_scores":
/// "fused" | "materialized"}, each E in (0, 1]; a missing key keeps the
/// default.
llvm::Expected<Calibration> parseCalibration(llvm::StringRef json,
                                             llvm::StringRef source);

/// The bytes an attention kernel that materializes its scores moves per
/// score, each score `elementBytes` wide:
/// - forward: QK^T writes S, the softmax reads S and writes P, P V reads P
///   (4 e); with dropout, the dropout reads P and writes it and its 1-byte
///   mask (2 e + 1);
/// - backward: the compiler's memory plan keeps no score, so P is formed
///   again as in the forward, less P V (3 e; with dropout 2 e + 1 more);
///   then dO V^T writes dP, P^T dO reads P, the softmax's gradient reads dP
///   and P and writes dS, dS K and dS^T Q read dS (7 e); with dropout, its
///   gradient reads dP and the mask and writes dP (2 e + 1).
int64_t materializedScoreBytes(int64_t elementBytes, bool dropout,
                               bool backward);

/// Bytes one rank sends on one mesh axis, and in how many collectives, by
/// how the program overlaps them.
struct AxisTraffic {
  int64_t exposedBytes = 0, exposedCount = 0;
  /// All-gathers / reduce-scatters fused with their GEMM
  /// (sp-fuse-collective-matmul), chunked.
  int64_t fusedBytes = 0, fusedCount = 0;
  /// Async gradient buckets (sp-overlap-grad-reductions).
  int64_t asyncBytes = 0, asyncCount = 0;
};

/// What the compiler counted in one pipeline stage's step function (one
/// rank of that stage): FLOPs by class over the whole step (every
/// micro-batch), the forward + backward FLOPs without recompute, the
/// backward's (recompute included), and traffic per mesh axis.
struct StageFacts {
  /// attentionFlops includes ringAttentionFlops.
  int64_t gemmFlops = 0, attentionFlops = 0, ringAttentionFlops = 0;
  /// gemmFlops by the GEMMs' output shape (rows, cols), for the wave model
  /// (Cluster::gemmWaves).
  std::map<std::pair<int64_t, int64_t>, int64_t> gemmFlopsByOutput;
  /// Bytes the memory-bound ops (norms, elementwise maps, the loss pieces,
  /// the optimizer: every tfm / dist op that is neither a GEMM, attention
  /// nor a collective) read and write, by op name.
  llvm::StringMap<int64_t> memoryBoundBytes;
  /// Bytes attention kernels that materialize their scores would move
  /// (AttentionScores::materialized): per score materializedScoreBytes, for
  /// every score of the b x heads x s_q x s_k square (each key block of a
  /// ring), causal or not, recomputed attention included.
  int64_t attentionScoreBytes = 0;
  int64_t modelFlops = 0, recomputeFlops = 0, backwardFlops = 0;
  llvm::StringMap<AxisTraffic> traffic;
};

/// The mesh as the compiler built it: axis names and sizes, outermost
/// first (ranks numbered row-major: the last axis's ranks adjacent).
struct Mesh {
  llvm::SmallVector<std::string> axes;
  llvm::SmallVector<int64_t> sizes;
};

/// Whether every group of `mesh`'s axis `axis` lies inside one node of
/// `gpusPerNode` GPUs: the axis's size times the sizes of the axes inside
/// it must divide gpusPerNode (row-major ranks, nodes of consecutive ranks).
bool axisIsIntraNode(const Mesh &mesh, size_t axis, int64_t gpusPerNode);

/// The fraction of `waves`' SMs a GEMM with a [rows, cols] output keeps
/// busy: its tiles (partial tiles whole) in whole waves, with the tile's
/// better orientation; 1 for an empty output.
double waveEfficiency(int64_t rows, int64_t cols, const GemmWaves &waves);

/// Seconds for a stage's GEMMs. Without a wave model, at peak x
/// calibration.gemm; with one, each GEMM at peak x (calibration.gemm, else
/// the model's efficiency) x its waveEfficiency.
double gemmSeconds(const StageFacts &facts, const Cluster &cluster,
                   double peakFlops, const Calibration &calibration);

/// The pipeline bubble: (P - 1) / (M + P - 1) of the step.
double bubbleFraction(int64_t stages, int64_t microBatches);

/// The pipeline stages that share a node: those whose ranks a node holds
/// together (ranks / stages ranks a stage, nodes of consecutive ranks), 1
/// where a stage fills a node or more.
int64_t stagesPerNode(const Cluster &cluster, int64_t ranks, int64_t stages);

/// At most how much a pipeline stretches a stage's step of equal stages:
/// (M + P - 1) / M; on shared cores (Cluster::soloSpeedup) with stages
/// sharing a node, at most max(1, that / S) (predict()'s bound below).
double pipelineStretch(const Cluster &cluster, int64_t ranks, int64_t stages,
                       int64_t microBatches);

/// Every memory-bound op's bytes together.
int64_t totalMemoryBoundBytes(const StageFacts &facts);

/// Seconds for `bytes` in `count` collectives over `link`.
double linkSeconds(int64_t bytes, int64_t count, const Link &link);

struct StageTime {
  double compute = 0, exposedComm = 0, hiddenComm = 0;
  double total() const { return compute + exposedComm; }
};

/// One stage's time: compute at peak x calibration, memory-bound ops (and
/// materialized attention scores) at the memory bandwidth x calibration;
/// exposed collectives in
/// full, fused ones all but 1/chunks hidden behind their GEMM, async
/// gradient buckets hidden behind the backward except what exceeds it (and
/// at least the last bucket).
StageTime stageTime(const StageFacts &facts, const Mesh &mesh,
                    const Cluster &cluster, double peakFlops,
                    const Calibration &calibration, int64_t fuseChunks);

struct Prediction {
  double stepSeconds = 0, bubble = 0;
  double tokensPerSecond = 0, mfu = 0, hfu = 0;
  /// The slowest stage's parts.
  StageTime slowest;
};

/// The step: per micro-batch, every stage's time once (the first
/// micro-batch's forward and the last one's backward cross them all) and
/// the slowest stage's for each other micro-batch, (sum_s T_s + (M - 1)
/// max_s T_s) / M of the stages' step times T_s, which is T / (1 - bubble)
/// for equal stages. On shared cores, where stages share a node, the busy
/// ranks run on the cores the idle ones yield: the step is then the
/// larger of that path at a lone rank's speed (over S) and each node's
/// work over its cores (the mean T_s of the stages on the node). The
/// bubble reported is the slowest stage's idle fraction; tokens/s of the
/// global batch; MFU and HFU over all ranks (model FLOPs without and with
/// recompute).
Prediction predict(llvm::ArrayRef<StageFacts> stages, const Mesh &mesh,
                   const Cluster &cluster, double peakFlops,
                   const Calibration &calibration, int64_t fuseChunks,
                   int64_t microBatches, int64_t tokensPerStep);

} // namespace seqpar::plan

#endif // SEQPAR_TOOLS_SP_PLAN_COSTMODEL_H

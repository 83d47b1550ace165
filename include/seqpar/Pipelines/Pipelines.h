//===- Pipelines.h - the pass pipelines sp-compile runs ---------*- C++ -*-===//
//
// The pipelines sp-compile runs, built by library functions so that sp-opt
// can run them too (--sp-inference-pipeline=, --sp-train-pipeline=) and any
// stage sp-compile reaches can be reproduced:
//
//   inference: [tfm-precision], sp-partition, [sp-fuse-collective-matmul],
//              sp-legalize-precision, [tfm-fuse-elementwise],
//              [tfm-fuse-epilogues], sp-plan-buffers, [convert-sp-to-runtime]
//   train:     [tfm-precision], sp-partition, [sp-pipeline],
//              tfm-master-weights, tfm-eval-step,
//              tfm-autodiff, [sp-recompute], sp-sync-grads, sp-optimizer,
//              [sp-overlap-grad-reductions], sp-verify,
//              [sp-fuse-collective-matmul], sp-legalize-precision,
//              [tfm-fuse-elementwise], [tfm-fuse-epilogues],
//              sp-plan-buffers,
//              [convert-sp-to-runtime]
//
// The stages are exposed on their own (the front stages end where an
// analysis such as sp-report reads the program; the back stage prepares it
// for execution).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_PIPELINES_PIPELINES_H
#define SEQPAR_PIPELINES_PIPELINES_H

#include "seqpar/Dialect/Common/SeqparChoices.h"

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace seqpar {

/// The options of sp-compile's pipelines, named as in the passes they set.
struct PipelineOptions : mlir::PassPipelineOptions<PipelineOptions> {
  Option<int64_t> tp{*this, "tp", llvm::cl::desc("Tensor-parallel degree"),
                     llvm::cl::init(1)};
  Option<int64_t> dp{*this, "dp", llvm::cl::desc("Data-parallel degree"),
                     llvm::cl::init(1)};
  Option<int64_t> cp{*this, "cp",
                     llvm::cl::desc("Context-parallel degree: the sequence "
                                    "split through attention"),
                     llvm::cl::init(1)};
  Option<int64_t> pp{*this, "pp",
                     llvm::cl::desc("Pipeline-parallel degree: the layers "
                                    "split into this many stages "
                                    "(sp-pipeline)"),
                     llvm::cl::init(1)};
  ListOption<int64_t> ppLayers{
      *this, "pp-layers",
      llvm::cl::desc("With pp > 1: the layers of each stage, "
                     "comma-separated (empty: balanced)")};
  Option<CpAttention> cpAttention{
      *this, "cp-attention",
      llvm::cl::desc("How attention sees the whole sequence under cp > 1"),
      llvm::cl::init(CpAttention::allgather), cpAttentionValues()};
  Option<bool> sequenceParallel{
      *this, "sequence-parallel",
      llvm::cl::desc("Shard the non-tensor-parallel regions along the "
                     "sequence"),
      llvm::cl::init(false)};
  Option<bool> train{
      *this, "train",
      llvm::cl::desc("Build a training step (implied by the train pipeline)"),
      llvm::cl::init(false)};
  Option<OptimizerKind> optimizer{
      *this, "optimizer", llvm::cl::desc("Training: the optimizer"),
      llvm::cl::init(OptimizerKind::adamw), optimizerKindValues()};
  Option<double> lr{*this, "lr", llvm::cl::desc("Training: learning rate"),
                    llvm::cl::init(1e-3)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("AdamW epsilon"),
                     llvm::cl::init(1e-8)};
  Option<double> weightDecay{*this, "weight-decay",
                             llvm::cl::desc("Weight decay"),
                             llvm::cl::init(0.0)};
  Option<double> gradClip{
      *this, "grad-clip",
      llvm::cl::desc("Clip the global gradient norm (0: off)"),
      llvm::cl::init(0.0)};
  Option<int64_t> zero{
      *this, "zero",
      llvm::cl::desc("Training: 1 shards the optimizer state over dp"),
      llvm::cl::init(0)};
  Option<int64_t> microBatches{
      *this, "micro-batches",
      llvm::cl::desc("Training: micro-batches per step, their gradients "
                     "summed (sp-micro-batches)"),
      llvm::cl::init(1)};
  Option<GradReduceDtype> gradReduceDtype{
      *this, "grad-reduce-dtype",
      llvm::cl::desc("Training: the element type gradients are reduced in "
                     "(sp-sync-grads)"),
      llvm::cl::init(GradReduceDtype::f32), gradReduceDtypeValues()};
  Option<bool> storageGemms{
      *this, "storage-gemms",
      llvm::cl::desc("bf16 / f16 programs: the GEMMs read and write their "
                     "tensors as stored, without f32 copies "
                     "(sp-legalize-precision)"),
      llvm::cl::init(true)};
  Option<bool> storageElementwise{
      *this, "storage-elementwise",
      llvm::cl::desc(
          "bf16 / f16 programs: the elementwise maps (add, mul, "
          "gelu, silu, relu, dropout and their gradients) read and write "
          "their tensors as "
          "stored, without f32 copies (sp-legalize-precision)"),
      llvm::cl::init(true)};
  Option<bool> storageRows{
      *this, "storage-rows",
      llvm::cl::desc("bf16 / f16 programs: the row reductions (layer and "
                     "RMS norms, the cross-entropy), their backward and the "
                     "bias gradients read and write their tensors as "
                     "stored, without f32 copies (sp-legalize-precision)"),
      llvm::cl::init(true)};
  Option<bool> storageAttention{
      *this, "storage-attention",
      llvm::cl::desc("bf16 / f16 programs: attention and its backward read "
                     "and write q, k, v and their gradients as stored, "
                     "without f32 copies (sp-legalize-precision)"),
      llvm::cl::init(true)};
  Option<bool> overlapGradReductions{
      *this, "overlap-grad-reductions",
      llvm::cl::desc("Training: start each gradient bucket's reduction as "
                     "soon as its gradients are computed, overlapping the "
                     "rest of the backward (sp-overlap-grad-reductions; "
                     "default false, sp-compile's for --target cpu; "
                     "sp-compile --target cuda turns it on)"),
      llvm::cl::init(false)};
  Option<MasterWeights> masterWeights{
      *this, "master-weights",
      llvm::cl::desc("Training a bf16 / f16 model: where the f32 master "
                     "weights live"),
      llvm::cl::init(MasterWeights::automatic), masterWeightsValues()};
  Option<RecomputePolicy> recompute{
      *this, "recompute",
      llvm::cl::desc("Training: what the backward recomputes instead of "
                     "keeping (sp-recompute)"),
      llvm::cl::init(RecomputePolicy::none), recomputePolicyValues()};
  Option<Precision> precision{
      *this, "precision",
      llvm::cl::desc("The model's precision (tfm-precision)"),
      llvm::cl::init(Precision::imported), precisionValues()};
  Option<int64_t> fuseChunks{
      *this, "fuse-chunks",
      llvm::cl::desc("Fuse each sequence all-gather with the column GEMM it "
                     "feeds, in this many chunks (0: do not fuse)"),
      llvm::cl::init(2)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse elementwise chains: dropout + residual add, "
                     "SwiGLU, residual sum + norm, norm backward + residual "
                     "gradient (tfm-fuse-elementwise, after "
                     "sp-legalize-precision)"),
      llvm::cl::init(true)};
  Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Fuse each GELU, and its gradient, with the GEMM next "
                     "to it, and each bias gradient with its weight gradient "
                     "(tfm-fuse-epilogues, after sp-legalize-precision)"),
      llvm::cl::init(true)};
  Option<bool> saveAttentionStats{
      *this, "save-attention-stats",
      llvm::cl::desc("Keep each attention's softmax statistics for its "
                     "backward, which then reads the forward's result "
                     "instead of running it again "
                     "(tfm-save-attention-stats)"),
      llvm::cl::init(true)};
  Option<bool> lowerToRuntime{
      *this, "lower-to-runtime",
      llvm::cl::desc("End with convert-sp-to-runtime (as sp-compile does "
                     "for --emit llvm, obj and exe)"),
      llvm::cl::init(false)};
};

/// How checkPipelineOptions names an option (by its name in
/// PipelineOptions) in its messages.
using OptionNamer = llvm::function_ref<std::string(llvm::StringRef option)>;

/// sp-opt's pipelines' names: the option's own ("tp"), "train" as "the
/// train pipeline".
std::string pipelineOptionName(llvm::StringRef option);

/// Why `options` do not describe a pipeline (one line naming the option as
/// `name` does), or none. `train` says which pipeline they are for. The one
/// validator of the pipelines' options: sp-opt's pipelines and sp-compile
/// (naming its flags) both call it; a choice option's value was checked
/// when it was parsed (SeqparChoices.h).
std::optional<std::string>
checkPipelineOptions(const PipelineOptions &options, bool train,
                     OptionNamer name = pipelineOptionName);

/// tfm-precision (when the options name a precision), then sp-partition
/// with the options' mesh, then (pp > 1) sp-pipeline.
void buildPartitionStage(mlir::OpPassManager &pm,
                         const PipelineOptions &options);

/// The training passes after sp-partition: tfm-master-weights, tfm-eval-step,
/// tfm-autodiff,
/// sp-recompute (unless recompute is none), sp-sync-grads, sp-optimizer and
/// sp-verify.
void buildTrainStage(mlir::OpPassManager &pm, const PipelineOptions &options);

/// What every program goes through last: sp-fuse-collective-matmul (unless
/// fuse-chunks is 0), sp-legalize-precision, tfm-fuse-elementwise (unless
/// fuse-elementwise is false), sp-plan-buffers and, with lower-to-runtime,
/// convert-sp-to-runtime.
void buildLoweringStage(mlir::OpPassManager &pm,
                        const PipelineOptions &options);

/// The forward (inference) program: partition and lowering stages.
void buildInferencePipeline(mlir::OpPassManager &pm,
                            const PipelineOptions &options);

/// The training step: partition, train and lowering stages.
void buildTrainPipeline(mlir::OpPassManager &pm,
                        const PipelineOptions &options);

/// The train pipeline if options.train, else the inference pipeline.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers --sp-inference-pipeline and --sp-train-pipeline; each rejects
/// options checkPipelineOptions rejects.
void registerPipelines();

} // namespace seqpar

#endif // SEQPAR_PIPELINES_PIPELINES_H

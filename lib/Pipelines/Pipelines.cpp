//===- Pipelines.cpp - the pass pipelines sp-compile runs -----------------===//

#include "seqpar/Pipelines/Pipelines.h"

#include "seqpar/Conversion/Passes.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace seqpar;

/// `v` as %g prints it.
static std::string str(double v) {
  char text[32];
  snprintf(text, sizeof text, "%g", v);
  return text;
}

std::string seqpar::pipelineOptionName(StringRef option) {
  return option == "train" ? "the train pipeline" : option.str();
}

std::optional<std::string>
seqpar::checkPipelineOptions(const PipelineOptions &o, bool train,
                             OptionNamer namer) {
  auto error = [](const Twine &message) { return message.str(); };
  // An option as the caller names it, from its own argument string.
  auto name = [&](const llvm::cl::Option &option) {
    return namer(option.ArgStr);
  };
  // "NAME needs the train pipeline" (sp-compile: "--NAME needs --train").
  auto needsTrain = [&](const llvm::cl::Option &option) {
    return error(name(option) + " needs " + name(o.train));
  };
  for (const PipelineOptions::Option<int64_t> *degree :
       {&o.tp, &o.dp, &o.cp, &o.pp})
    if (*degree < 1)
      return error(name(*degree) + " must be >= 1, got " +
                   Twine(int64_t(*degree)));
  std::optional<int64_t> tpdp = llvm::checkedMul<int64_t>(o.tp, o.dp);
  if (!tpdp || !llvm::checkedMul<int64_t>(*tpdp, o.cp))
    return error(name(o.tp) + " * " + name(o.dp) + " * " + name(o.cp) + " = " +
                 Twine(o.tp) + " * " + Twine(o.dp) + " * " + Twine(o.cp) +
                 " ranks overflows int64");
  if (!llvm::checkedMul<int64_t>(*tpdp * o.cp, o.pp))
    return error(name(o.tp) + " * " + name(o.dp) + " * " + name(o.cp) + " * " +
                 name(o.pp) + " = " + Twine(o.tp) + " * " + Twine(o.dp) +
                 " * " + Twine(o.cp) + " * " + Twine(o.pp) +
                 " ranks overflows int64");
  // (allgather, the default, restated without cp is accepted.)
  if (o.cpAttention == CpAttention::ring && o.cp == 1)
    return error(name(o.cpAttention) + " ring needs " + name(o.cp) +
                 " > 1 (it passes K/V blocks around the ranks a sequence is "
                 "split over)");
  if (!train && o.pp > 1)
    return error(name(o.pp) + " " + Twine(o.pp) + " needs " + name(o.train) +
                 " (pipelined inference is not supported yet)");
  if (!o.ppLayers.empty()) {
    if (o.pp == 1)
      return error(name(o.ppLayers) + " needs " + name(o.pp) + " > 1");
    if (int64_t(o.ppLayers.size()) != o.pp ||
        llvm::any_of(o.ppLayers, [](int64_t n) { return n < 1; }))
      return error(
          name(o.ppLayers) + " must give each of the " + name(o.pp) + " " +
          Twine(o.pp) + " stages at least one layer, got " +
          join(llvm::map_range(o.ppLayers,
                               [](int64_t n) { return Twine(n).str(); }),
               ","));
  }
  if (o.fuseChunks < 0)
    return error(name(o.fuseChunks) + " must be >= 0, got " +
                 Twine(o.fuseChunks));
  if (o.zero != 0 && o.zero != 1)
    return error(name(o.zero) + " must be 0 or 1, got " + Twine(o.zero));
  if (o.microBatches < 1)
    return error(name(o.microBatches) + " must be >= 1, got " +
                 Twine(o.microBatches));
  if (!train) {
    if (o.train)
      return error("train=true needs the train pipeline");
    if (o.zero == 1)
      return needsTrain(o.zero);
    if (o.microBatches != 1)
      return needsTrain(o.microBatches);
    if (o.gradReduceDtype != GradReduceDtype::f32)
      return needsTrain(o.gradReduceDtype);
    if (o.recompute != RecomputePolicy::none)
      return needsTrain(o.recompute);
  }
  auto finite = [](double v) { return std::isfinite(v); };
  if (!(finite(o.lr) && o.lr > 0))
    return error(name(o.lr) + " must be finite and > 0, got " + str(o.lr));
  for (const PipelineOptions::Option<double> *beta : {&o.beta1, &o.beta2})
    if (!(*beta >= 0 && *beta < 1))
      return error(name(*beta) + " must be in [0, 1), got " + str(*beta));
  if (!(finite(o.eps) && o.eps > 0))
    return error(name(o.eps) + " must be finite and > 0, got " + str(o.eps));
  if (!(finite(o.weightDecay) && o.weightDecay >= 0))
    return error(name(o.weightDecay) + " must be finite and >= 0, got " +
                 str(o.weightDecay));
  if (!(finite(o.gradClip) && o.gradClip >= 0))
    return error(name(o.gradClip) + " must be finite and >= 0 (0: off), got " +
                 str(o.gradClip));
  return std::nullopt;
}

void seqpar::buildPartitionStage(OpPassManager &pm,
                                 const PipelineOptions &options) {
  if (options.precision != Precision::imported) {
    tfm::TfmPrecisionPassOptions precision;
    precision.precision = options.precision;
    pm.addPass(tfm::createTfmPrecisionPass(precision));
  }
  dist::SpPartitionPassOptions partition;
  partition.tp = options.tp;
  partition.dp = options.dp;
  partition.cp = options.cp;
  partition.cpAttention = options.cpAttention;
  partition.sequenceParallel = options.sequenceParallel;
  partition.pp = options.pp;
  pm.addPass(dist::createSpPartitionPass(partition));
  if (options.pp > 1) {
    dist::SpPipelinePassOptions pipeline;
    pipeline.layers = options.ppLayers;
    pm.addPass(dist::createSpPipelinePass(pipeline));
  }
}

void seqpar::buildTrainStage(OpPassManager &pm,
                             const PipelineOptions &options) {
  // A bf16 / f16 model trains f32 master weights (no-op on f32 models).
  pm.addPass(tfm::createTfmMasterWeightsPass());
  // The forward without dropout, for validation, before autodiff consumes
  // the forward (and after the master weights, whose reads it shares).
  pm.addPass(tfm::createTfmEvalStepPass());
  pm.addPass(tfm::createTfmAutodiffPass());
  // Right after the backward is built: the passes after it treat the copies
  // it places in the backward as any other op.
  if (options.recompute != RecomputePolicy::none) {
    dist::SpRecomputePassOptions recompute;
    recompute.policy = options.recompute;
    pm.addPass(dist::createSpRecomputePass(recompute));
  }
  // Before the gradients are reduced: they are summed over the
  // micro-batches first, then reduced once.
  if (options.microBatches > 1) {
    dist::SpMicroBatchesPassOptions micro;
    micro.microBatches = options.microBatches;
    // The overlap needs each gradient's last accumulation in straight-line
    // code; without it the peel would only double the step's IR.
    micro.peelLast = options.overlapGradReductions;
    pm.addPass(dist::createSpMicroBatchesPass(micro));
  }
  dist::SpSyncGradsPassOptions sync;
  sync.zero = options.zero;
  sync.gradReduceDtype = options.gradReduceDtype;
  pm.addPass(dist::createSpSyncGradsPass(sync));
  dist::SpOptimizerPassOptions opt;
  opt.optimizer = options.optimizer;
  opt.lr = options.lr;
  opt.beta1 = options.beta1;
  opt.beta2 = options.beta2;
  opt.eps = options.eps;
  opt.weightDecay = options.weightDecay;
  opt.gradClip = options.gradClip;
  opt.masterWeights = options.masterWeights;
  pm.addPass(dist::createSpOptimizerPass(opt));
  if (options.overlapGradReductions)
    pm.addPass(dist::createSpOverlapGradReductionsPass());
  pm.addPass(dist::createSpVerifyPass());
}

void seqpar::buildLoweringStage(OpPassManager &pm,
                                const PipelineOptions &options) {
  if (options.fuseChunks > 0) {
    dist::SpFuseCollectiveMatmulPassOptions fuse;
    fuse.chunks = options.fuseChunks;
    pm.addPass(dist::createSpFuseCollectiveMatmulPass(fuse));
  }
  // After the fusion (which matches the ops as the earlier passes typed
  // them), before the plan (the converts' results need arena space); a no-op
  // on an f32 program.
  dist::SpLegalizePrecisionPassOptions precision;
  precision.storageGemms = options.storageGemms;
  precision.storageElementwise = options.storageElementwise;
  precision.storageRows = options.storageRows;
  precision.storageAttention = options.storageAttention;
  pm.addPass(dist::createSpLegalizePrecisionPass(precision));
  // On the final q, k, v (legalized, recomputed): the backward reads the
  // forward's result and statistics.
  if (options.saveAttentionStats)
    pm.addPass(tfm::createTfmSaveAttentionStatsPass());
  // On the legalized types: a dropout and an add of one stored type fuse.
  if (options.fuseElementwise)
    pm.addPass(tfm::createTfmFuseElementwisePass());
  // A linear and its GELU of one stored type fuse (cuBLASLt's epilogue).
  if (options.fuseEpilogues)
    pm.addPass(tfm::createTfmFuseEpiloguesPass());
  pm.addPass(dist::createSpPlanBuffersPass());
  if (options.lowerToRuntime)
    pm.addPass(createConvertSpToRuntimePass());
}

void seqpar::buildInferencePipeline(OpPassManager &pm,
                                    const PipelineOptions &options) {
  buildPartitionStage(pm, options);
  buildLoweringStage(pm, options);
}

void seqpar::buildTrainPipeline(OpPassManager &pm,
                                const PipelineOptions &options) {
  buildPartitionStage(pm, options);
  buildTrainStage(pm, options);
  buildLoweringStage(pm, options);
}

void seqpar::buildPipeline(OpPassManager &pm, const PipelineOptions &options) {
  if (options.train)
    buildTrainPipeline(pm, options);
  else
    buildInferencePipeline(pm, options);
}

/// Registers `name`: parses its options, checks them, builds with `build`.
static void registerPipeline(StringRef name, StringRef description, bool train,
                             void (*build)(OpPassManager &,
                                           const PipelineOptions &)) {
  std::string arg = name.str();
  registerPassPipeline(
      name, description,
      [arg, train,
       build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        PipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::optional<std::string> error =
                checkPipelineOptions(options, train))
          return errorHandler("--" + arg + ": " + *error);
        build(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(PipelineOptions());
      });
}

void seqpar::registerPipelines() {
  registerPipeline("sp-inference-pipeline",
                   "sp-compile's pipeline for a forward program: "
                   "[tfm-precision,] sp-partition, sp-fuse-collective-matmul, "
                   "sp-legalize-precision, sp-plan-buffers "
                   "[, convert-sp-to-runtime]",
                   /*train=*/false, buildInferencePipeline);
  registerPipeline(
      "sp-train-pipeline",
      "sp-compile --train's pipeline: [tfm-precision,] sp-partition, "
      "[sp-pipeline,] "
      "tfm-master-weights, tfm-eval-step, tfm-autodiff, sp-recompute, "
      "sp-micro-batches, "
      "sp-sync-grads, "
      "sp-optimizer, sp-overlap-grad-reductions, sp-verify, "
      "sp-fuse-collective-matmul, sp-legalize-precision, sp-plan-buffers "
      "[, convert-sp-to-runtime]",
      /*train=*/true, buildTrainPipeline);
}

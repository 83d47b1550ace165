//===- DifferentiableOpTest.cpp - every forward op has a backward rule ----===//
//
// tfm-autodiff differentiates an op through DifferentiableOpInterface. These
// tests check, over the ops the dialects register, that every op that can
// appear in a partitioned @forward has a rule once seqpar::registerAllDialects
// attached dist's external models, and that a context built without them
// gets an error naming the cause from tfm-autodiff.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"
#include "seqpar/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace seqpar;

namespace {

/// A tfm forward op is one that declares what it keeps for its backward
/// (SavedForBackwardOpInterface: every op defined with Tfm_Op). The tfm ops
/// that need no backward rule are all the others, each because it never
/// appears in a @forward:
/// - tfm.param, a module-level declaration (its gradient is collected from
///   its tfm.get_param reads);
/// - the backward ops (Tfm_GradOp, TfmGradOps.td), which tfm-autodiff
///   creates after the forward and does not differentiate again;
/// - the optimizer ops (TfmOptimizerOps.td), which sp-optimizer adds to the
///   train step;
/// - the fused ops (TfmFusedOps.td), which tfm-fuse-elementwise and
///   tfm-fuse-epilogues make after autodiff; the forward ones declare what
///   the ops they fuse keep (for the memory report), so they are listed
///   here.
/// A new forward op (Tfm_Op) therefore needs a rule and no entry here.
const llvm::StringSet<> fusedOps = {"tfm.add_layer_norm", "tfm.add_rms_norm",
                                    "tfm.dropout_add", "tfm.linear_gelu",
                                    "tfm.swiglu"};

bool isForwardOp(RegisteredOperationName name) {
  return name.hasInterface<tfm::SavedForBackwardOpInterface>() &&
         !fusedOps.contains(name.getStringRef());
}

/// Spot checks that the classification above sorts ops as it says.
const char *const forwardOpsWithoutGradient[] = {
    "tfm.get_param", "tfm.position_ids", "tfm.logits_max", "tfm.label_count"};
const char *const opsNeverInAForward[] = {
    "tfm.param", "tfm.linear_grad_input", "tfm.fill",
    "tfm.scale", "tfm.sum_squares",       "tfm.adamw_update"};

/// The dist collectives sp-partition puts in a forward: each has a transpose.
const llvm::StringSet<> distOpsWithRule = {
    "dist.all_gather", "dist.reduce_scatter", "dist.local_slice",
    "dist.all_reduce",
    // sp-pipeline's transfers between stages (each the other's transpose).
    "dist.send", "dist.recv",
    // Context parallelism's ring variant (transposed to ring_attention_grad).
    "dist.ring_attention"};

/// dist ops without a transpose, each because no @forward holds it.
const llvm::StringSet<> distOpsWithoutRule = {
    // A module-level declaration.
    "dist.mesh",
    // Created after tfm-autodiff: sp-sync-grads (coalesced reductions),
    // sp-optimizer (all_gather_param), sp-fuse-collective-matmul (fused),
    // tfm-fuse-epilogues (the gathered GEMM with its GELU).
    "dist.all_reduce_coalesced", "dist.reduce_scatter_coalesced",
    "dist.all_gather_param", "dist.all_gather_matmul",
    "dist.all_gather_matmul_gelu", "dist.matmul_reduce_scatter",
    "dist.all_gather_matmul_grad_weight",
    // Created by tfm-autodiff (ring_attention's transpose).
    "dist.ring_attention_grad",
    // Not produced by sp-partition; all_to_all in a @forward is rejected
    // (test/Dialect/Tfm/Transforms/tfm-autodiff-invalid.mlir).
    "dist.all_to_all"};

void loadAll(MLIRContext &ctx, const DialectRegistry &registry) {
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
}

bool hasRule(RegisteredOperationName name) {
  return name.hasInterface<tfm::DifferentiableOpInterface>();
}

TEST(DifferentiableOp, EveryTfmForwardOpHasARule) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx;
  loadAll(ctx, registry);
  int forward = 0, other = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "tfm")
      continue;
    bool isForward = isForwardOp(name);
    ++(isForward ? forward : other);
    EXPECT_EQ(hasRule(name), isForward)
        << name.getStringRef().str()
        << (isForward ? " is a forward op (Tfm_Op) without a backward rule: "
                        "implement DifferentiableOpInterface (TfmBackward.cpp)"
                      : " never appears in a @forward but has a backward rule");
  }
  // Neither class is empty, and the spot checks are sorted as documented.
  EXPECT_GT(forward, 0);
  EXPECT_GT(other, 0);
  for (const char *op : forwardOpsWithoutGradient) {
    auto name = RegisteredOperationName::lookup(op, &ctx);
    ASSERT_TRUE(name.has_value()) << op;
    EXPECT_TRUE(isForwardOp(*name) && hasRule(*name)) << op;
  }
  for (const char *op : opsNeverInAForward) {
    auto name = RegisteredOperationName::lookup(op, &ctx);
    ASSERT_TRUE(name.has_value()) << op;
    EXPECT_FALSE(isForwardOp(*name) || hasRule(*name)) << op;
  }
}

TEST(DifferentiableOp, DistCollectivesOfAForwardHaveTransposes) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx;
  loadAll(ctx, registry);
  int checked = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "dist")
      continue;
    ++checked;
    StringRef op = name.getStringRef();
    if (distOpsWithRule.contains(op))
      EXPECT_TRUE(hasRule(name)) << op.str() << " has no transpose";
    else
      EXPECT_TRUE(distOpsWithoutRule.contains(op) && !hasRule(name))
          << op.str()
          << " is in neither list: say whether it can appear in a @forward "
             "(and give it a transpose in DistBackward.cpp) or not";
  }
  EXPECT_EQ(checked, int(distOpsWithRule.size() + distOpsWithoutRule.size()));
}

// A @forward whose loss goes through two dist collectives.
const char *forwardWithCollectives = R"mlir(
dist.mesh @mesh ["tp" = 2]
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  %s = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %l = dist.all_gather %s on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %l, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
)mlir";

/// Runs tfm-autodiff on `forwardWithCollectives` in `ctx`; returns the
/// errors it reported, one per line.
std::string runAutodiff(MLIRContext &ctx, bool &succeeded) {
  std::string errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    errors += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(forwardWithCollectives, &ctx);
  EXPECT_TRUE(module) << errors;
  if (!module) {
    succeeded = false;
    return errors;
  }
  PassManager pm(&ctx);
  pm.addPass(tfm::createTfmAutodiffPass());
  succeeded = mlir::succeeded(pm.run(*module));
  return errors;
}

TEST(DifferentiableOp, AutodiffTransposesCollectivesWithRegisterAll) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  bool ok = false;
  std::string errors = runAutodiff(ctx, ok);
  EXPECT_TRUE(ok) << errors;
  EXPECT_EQ(errors, "");
}

TEST(DifferentiableOp, AutodiffNamesMissingRegistration) {
  // The dialects alone, without the external models registerAllDialects
  // attaches.
  DialectRegistry registry;
  registry.insert<func::FuncDialect, tfm::TfmDialect, dist::DistDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // tfm's own rules are there (ODS), dist's transposes are not.
  EXPECT_TRUE(hasRule(*RegisteredOperationName::lookup("tfm.linear", &ctx)));
  EXPECT_FALSE(
      hasRule(*RegisteredOperationName::lookup("dist.all_gather", &ctx)));
  bool ok = true;
  std::string errors = runAutodiff(ctx, ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(errors,
            "'dist.all_gather' op has no gradient rule in tfm-autodiff: the "
            "transposes of dist collectives are not registered in this "
            "context (build it with seqpar::registerAllDialects)\n");
}

} // namespace

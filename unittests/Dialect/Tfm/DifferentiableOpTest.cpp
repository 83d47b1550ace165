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

/// tfm ops with no backward rule, each because it never appears in a
/// @forward: a module-level declaration, or an op that tfm-autodiff (grad
/// ops) or a later pass (optimizer ops) creates after the forward.
const llvm::StringSet<> tfmOpsWithoutRule = {
    // A module-level declaration: its gradient is collected from the
    // tfm.get_param reads.
    "tfm.param",
    // The backward ops tfm-autodiff creates (TfmGradOps.td).
    "tfm.linear_grad_input", "tfm.linear_grad_weight", "tfm.bias_grad",
    "tfm.layer_norm_grad", "tfm.rms_norm_grad", "tfm.gelu_grad",
    "tfm.silu_grad", "tfm.scale", "tfm.fill", "tfm.embedding_grad",
    "tfm.qkv_concat", "tfm.repeat_heads_grad", "tfm.attention_grad",
    "tfm.cross_entropy_grad", "tfm.cross_entropy_from_stats_grad",
    "tfm.logits_sumexp_grad", "tfm.label_logit_grad",
    // The optimizer ops sp-optimizer adds to the train step
    // (TfmOptimizerOps.td).
    "tfm.sum_squares", "tfm.clip_scale", "tfm.sgd_update", "tfm.adamw_update"};

/// The dist collectives sp-partition puts in a forward: each has a transpose.
const llvm::StringSet<> distOpsWithRule = {
    "dist.all_gather", "dist.reduce_scatter", "dist.local_slice",
    "dist.all_reduce"};

/// dist ops without a transpose, each because no @forward holds it.
const llvm::StringSet<> distOpsWithoutRule = {
    // A module-level declaration.
    "dist.mesh",
    // Created after tfm-autodiff: sp-sync-grads (coalesced reductions),
    // sp-optimizer (all_gather_param), sp-fuse-collective-matmul (fused).
    "dist.all_reduce_coalesced", "dist.reduce_scatter_coalesced",
    "dist.all_gather_param", "dist.all_gather_matmul",
    "dist.matmul_reduce_scatter",
    // Not produced by sp-partition; all_to_all in a @forward is rejected
    // (test/Dialect/Tfm/Transforms/tfm-autodiff-invalid.mlir).
    "dist.all_to_all", "dist.send", "dist.recv"};

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
  int checked = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "tfm")
      continue;
    ++checked;
    bool listed = tfmOpsWithoutRule.contains(name.getStringRef());
    EXPECT_EQ(hasRule(name), !listed)
        << name.getStringRef().str()
        << (listed ? " is listed as never in a @forward but has a rule: "
                     "remove it from tfmOpsWithoutRule"
                   : " can appear in a @forward but has no backward rule: "
                     "implement DifferentiableOpInterface (TfmBackward.cpp), "
                     "or list it in tfmOpsWithoutRule with the reason");
  }
  // Every listed op exists (a renamed op must not leave a stale entry).
  for (const auto &entry : tfmOpsWithoutRule)
    EXPECT_TRUE(
        RegisteredOperationName::lookup(entry.getKey(), &ctx).has_value())
        << entry.getKey().str() << " is not a registered op";
  // The loop saw the forward ops, not only the listed ones.
  EXPECT_GT(checked, int(tfmOpsWithoutRule.size()));
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
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  %s = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x1x8xf32> -> tensor<2x1x8xf32, #dist.layout<tp = S(0)>>
  %l = dist.all_gather %s on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<tp = S(0)>> -> tensor<4x1x8xf32>
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

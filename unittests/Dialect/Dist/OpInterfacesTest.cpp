//===- OpInterfacesTest.cpp - every op against every interface ------------===//
//
// The analyses and the lowering ask each op through interfaces, never by its
// class: its runtime lowering, its cost, which operand a result may be
// written over, how gradients pass through it, and (for what the memory
// report reads) what its backward keeps. Every tfm and dist op must declare
// each one, those with nothing to say included: an op added without one
// fails here, listed by name, instead of being silently costed at 0, never
// reused, or skipped by the report.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/Analysis/PlanFacts.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

namespace {

struct Interface {
  const char *name;
  std::function<bool(RegisteredOperationName)> has;
  /// Ops that need not implement it, each for its reason.
  llvm::StringSet<> exempt;
};

TEST(OpInterfaces, EveryTfmAndDistOpDeclaresEach) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::vector<Interface> interfaces = {
      {"CostOpInterface",
       [](RegisteredOperationName op) {
         return op.hasInterface<CostOpInterface>();
       },
       {}},
      {"InPlaceOpInterface",
       [](RegisteredOperationName op) {
         return op.hasInterface<InPlaceOpInterface>();
       },
       {}},
      {"GradTransferOpInterface",
       [](RegisteredOperationName op) {
         return op.hasInterface<GradTransferOpInterface>();
       },
       {}},
      // tfm's backward and optimizer ops, which never stand in a forward, and
      // tfm's ops that compute no activation (a symbol, a host scalar, a
      // constant, control flow), which the memory report passes over.
      {"SavedForBackwardOpInterface",
       [](RegisteredOperationName op) {
         return op.hasInterface<tfm::SavedForBackwardOpInterface>();
       },
       {"tfm.linear_grad_input",
        "tfm.linear_grad_weight",
        "tfm.bias_grad",
        "tfm.layer_norm_grad",
        "tfm.rms_norm_grad",
        "tfm.gelu_grad",
        "tfm.silu_grad",
        "tfm.relu_grad",
        "tfm.scale",
        "tfm.embedding_grad",
        "tfm.qkv_concat",
        "tfm.repeat_heads_grad",
        "tfm.attention_grad",
        "tfm.cross_entropy_grad",
        "tfm.cross_entropy_from_stats_grad",
        "tfm.logits_sumexp_grad",
        "tfm.label_logit_grad",
        "tfm.linear_gelu_grad",
        "tfm.linear_grad_weight_bias",
        "tfm.swiglu_grad",
        "tfm.sum_squares",
        "tfm.clip_scale",
        "tfm.sgd_update",
        "tfm.adamw_update",
        "tfm.param",
        "tfm.hyperparameter",
        "tfm.fill",
        "tfm.micro_batch_loop",
        "tfm.yield"}},
      // The module-level symbols the lowering reads as tables, and the
      // control flow it lowers itself (RuntimeLoweringTest says why).
      {"RuntimeLoweringOpInterface",
       [](RegisteredOperationName op) {
         return op.hasInterface<RuntimeLoweringOpInterface>();
       },
       {"tfm.param", "dist.mesh", "tfm.micro_batch_loop", "tfm.yield"}},
  };
  size_t seen = 0;
  for (const Interface &i : interfaces) {
    std::string missing;
    for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
      StringRef ns = op.getDialectNamespace();
      if (ns != "tfm" && ns != "dist")
        continue;
      seen += &i == &interfaces.front();
      if (!i.exempt.contains(op.getStringRef()) && !i.has(op))
        missing += op.getStringRef().str() + " ";
    }
    EXPECT_EQ(missing, "") << "without " << i.name;
  }
  // tfm: 20 forward, 17 gradient, 4 optimizer ops and the structural ones;
  // dist: 16 and the mesh.
  EXPECT_GE(seen, 60u);
}

constexpr StringLiteral kOps = R"mlir(
dist.mesh @mesh ["tp" = 2]
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  %s = tfm.add %a, %b : tensor<4x8xf32>
  %m = tfm.mul %a, %b : tensor<4x8xf32>
  %r = dist.all_reduce %a on @mesh["tp"] max : tensor<4x8xf32> -> tensor<4x8xf32>
  %x:2 = dist.all_reduce_coalesced %a, %b on @mesh["tp"] sum
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %g = dist.reduce_scatter %a on @mesh["tp"] dim 1 : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}
)mlir";

// What the declarations say, for the ops the analyses used to match by
// class.
TEST(OpInterfaces, DeclarationsOfTheMatchedOps) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kOps, &ctx);
  ASSERT_TRUE(module);
  std::vector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (isa<tfm::TfmDialect, DistDialect>(op->getDialect()) && !isa<MeshOp>(op))
      ops.push_back(op);
  });
  ASSERT_EQ(ops.size(), 5u);
  auto transfer = [](Operation *op) {
    return cast<GradTransferOpInterface>(op).getGradTransfer();
  };
  auto inPlace = [](Operation *op, unsigned r) {
    return cast<InPlaceOpInterface>(op).getInPlaceOperand(r);
  };
  // tfm.add sums; tfm.mul is opaque; neither works in place.
  EXPECT_EQ(transfer(ops[0]).kind, GradTransfer::sum);
  EXPECT_EQ(transfer(ops[1]).kind, GradTransfer::opaque);
  EXPECT_EQ(inPlace(ops[0], 0), std::nullopt);
  // The all-reduce reduces by its kind over its axis, over its operand.
  GradTransfer r = transfer(ops[2]);
  EXPECT_EQ(r.kind, GradTransfer::reduce);
  EXPECT_EQ(r.axis, "tp");
  EXPECT_EQ(r.reduction, ReductionKind::max);
  EXPECT_EQ(inPlace(ops[2], 0), std::optional<unsigned>(0));
  // The coalesced one: each result over its own operand.
  EXPECT_EQ(transfer(ops[3]).kind, GradTransfer::reduce);
  EXPECT_EQ(inPlace(ops[3], 1), std::optional<unsigned>(1));
  // A reduce-scatter sums over its axis, into a buffer of its own.
  GradTransfer g = transfer(ops[4]);
  EXPECT_EQ(g.kind, GradTransfer::reduce);
  EXPECT_EQ(g.axis, "tp");
  EXPECT_EQ(g.reduction, ReductionKind::sum);
  EXPECT_EQ(inPlace(ops[4], 0), std::nullopt);
}

} // namespace

//===- CostModelTest.cpp - every op says what it costs --------------------===//
//
// CostOpInterface (Flops.h): every tfm and dist op has a cost model through
// seqpar::registerAllDialects, so an op added without one fails here; and
// where an op's FLOPs are asked for without a model, that is an error at the
// op, not 0.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

namespace {

TEST(CostModel, EveryTfmAndDistOpHasOne) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  size_t seen = 0;
  std::string missing;
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    StringRef ns = op.getDialectNamespace();
    if (ns != "tfm" && ns != "dist")
      continue;
    ++seen;
    if (!op.hasInterface<CostOpInterface>())
      missing += op.getStringRef().str() + " ";
  }
  // tfm: 20 forward, 17 gradient, 4 optimizer ops and the structural ones;
  // dist: 16 and the mesh.
  EXPECT_GE(seen, 60u);
  EXPECT_EQ(missing, "");
}

constexpr StringLiteral kOps = R"mlir(
func.func @f(%x: tensor<16x2x32xf32>, %w: tensor<64x32xf32>) -> tensor<16x2x64xf32> {
  %y = tfm.linear %x, %w : (tensor<16x2x32xf32>, tensor<64x32xf32>) -> tensor<16x2x64xf32>
  %z = tfm.gelu %y approximate tanh : tensor<16x2x64xf32>
  return %z : tensor<16x2x64xf32>
}
)mlir";

TEST(CostModel, CountsGemmsAndDeclaresZeros) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kOps, &ctx);
  ASSERT_TRUE(module);
  SmallVector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (isa<tfm::LinearOp, tfm::GeluOp>(op))
      ops.push_back(op);
  });
  ASSERT_EQ(ops.size(), 2u);
  auto linear = cast<CostOpInterface>(ops[0]);
  EXPECT_EQ(linear.getFlops(), std::optional<int64_t>(2 * 32 * 64 * 32));
  EXPECT_EQ(linear.getCostKind(), CostKind::gemm);
  auto gelu = cast<CostOpInterface>(ops[1]);
  EXPECT_EQ(gelu.getFlops(), std::optional<int64_t>(0));
  EXPECT_EQ(gelu.getCostKind(), CostKind::none);
  // Ops of other dialects have no kernel: 0, no error.
  func::FuncOp f = *module->getOps<func::FuncOp>().begin();
  EXPECT_EQ(opFlops(f), std::optional<int64_t>(0));
}

// Without the models (the dialects alone), asking for a tfm op's FLOPs is an
// error naming the interface, never a silent 0.
TEST(CostModel, AnOpWithoutAModelIsAnError) {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect, tfm::TfmDialect, DistDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kOps, &ctx);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  Operation *linear = nullptr;
  module->walk([&](tfm::LinearOp op) { linear = op; });
  ASSERT_TRUE(linear);
  EXPECT_EQ(opFlops(linear), std::nullopt);
  EXPECT_EQ(message,
            "'tfm.linear' op has no cost model (CostOpInterface, "
            "lib/Dialect/Dist/Analysis/Flops.cpp): its FLOPs are unknown");
}

} // namespace

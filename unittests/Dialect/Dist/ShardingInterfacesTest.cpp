//===- ShardingInterfacesTest.cpp - per-op rules through interfaces -------===//
//
// The layout rules (ShardingRuleOpInterface) and sp-partition's rewrites
// (PartitionOpInterface) of tfm's ops are external models that dist attaches
// through seqpar::registerAllDialects. These tests check that every tfm op
// sp-verify or sp-partition meets has them, and that the layout rule of an op
// is the one its interface model gives.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Import/HFImport.h"
#include "seqpar/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

namespace {
/// Loads what the tools load (seqpar::registerAllDialects) into `ctx`.
void withAllDialects(MLIRContext &ctx) {
  DialectRegistry registry;
  registerAllDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
}

/// The registered operations of dialect `ns` lacking interface `Iface`,
/// except `excluded`, as "name name ...".
template <typename Iface>
std::string missing(MLIRContext &ctx, StringRef ns,
                    ArrayRef<StringRef> excluded) {
  std::string names;
  for (RegisteredOperationName op : ctx.getRegisteredOperations())
    if (op.getDialectNamespace() == ns && !op.hasInterface<Iface>() &&
        !llvm::is_contained(excluded, op.getStringRef()))
      names += op.getStringRef().str() + " ";
  return names;
}

/// A module from `text` (fails the test if it does not parse and verify).
OwningOpRef<ModuleOp> parse(MLIRContext &ctx, StringRef text) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  EXPECT_TRUE(module) << text.str();
  return module;
}

// A gelu of a partial value (not the gelu of the sum) and one of a value
// split on its features (fine: split like the input).
constexpr StringLiteral kGelu = R"mlir(
func.func @partial(%x: tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>)
    -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>> {
  %y = tfm.gelu %x approximate tanh : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
  return %y : tensor<4x2x8xf32, #dist.layout<@mesh, tp = P>>
}
func.func @split(%x: tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>)
    -> tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>> {
  %y = tfm.gelu %x approximate tanh : tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
  return %y : tensor<4x2x4xf32, #dist.layout<@mesh, tp = S(2)>>
}
)mlir";

/// The gelus of kGelu: of a partial value, then of a split one.
std::pair<Operation *, Operation *> gelus(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](tfm::GeluOp op) { ops.push_back(op); });
  EXPECT_EQ(ops.size(), 2u);
  return {ops[0], ops[1]};
}
} // namespace

TEST(ShardingInterfaces, EveryTfmOpWithLayoutsHasARule) {
  MLIRContext ctx;
  withAllDialects(ctx);
  // Excluded: ops whose layouts no rule derives.
  // - tfm.param declares a parameter at module level: it has no operands or
  //   results; its layout is checked against the mesh by sp-verify directly.
  // - tfm.sgd_update and tfm.adamw_update have no results (they write their
  //   parameter in place); sp-verify checks them by ParamUpdateOpInterface
  //   (one update per parameter, with its gradient).
  // - tfm.yield has no results: what it yields is the results of its
  //   tfm.micro_batch_loop, whose rule reads it.
  const StringRef excluded[] = {"tfm.param", "tfm.sgd_update",
                                "tfm.adamw_update", "tfm.yield"};
  for (StringRef name : excluded)
    EXPECT_TRUE(RegisteredOperationName::lookup(name, &ctx)) << name.str();
  EXPECT_EQ(missing<ShardingRuleOpInterface>(ctx, "tfm", excluded), "");
}

TEST(ShardingInterfaces, NoRuleWithoutTheModels) {
  // tfm alone (no dist models attached): its ops have no rule, and
  // inferResultShardings answers as for any op without one.
  DialectRegistry registry;
  registry.insert<func::FuncDialect, tfm::TfmDialect, DistDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  EXPECT_FALSE(RegisteredOperationName::lookup("tfm.gelu", &ctx)
                   ->hasInterface<ShardingRuleOpInterface>());
  OwningOpRef<ModuleOp> module = parse(ctx, kGelu);
  ASSERT_TRUE(module);
  auto [partial, split] = gelus(*module);
  FailureOr<SmallVector<Sharding>> got = inferResultShardings(partial, "tp");
  ASSERT_TRUE(succeeded(got));
  EXPECT_TRUE(got->empty());
}

TEST(ShardingInterfaces, RuleComesFromTheModel) {
  MLIRContext ctx;
  withAllDialects(ctx);
  OwningOpRef<ModuleOp> module = parse(ctx, kGelu);
  ASSERT_TRUE(module);
  auto [partial, split] = gelus(*module);
  ASSERT_TRUE(isa<ShardingRuleOpInterface>(split));

  FailureOr<SmallVector<Sharding>> got = inferResultShardings(split, "tp");
  ASSERT_TRUE(succeeded(got));
  EXPECT_EQ(*got, SmallVector<Sharding>{Sharding::split(2)});
  // Another axis: nothing is split on it.
  got = inferResultShardings(split, "dp");
  ASSERT_TRUE(succeeded(got));
  EXPECT_EQ(*got, SmallVector<Sharding>{Sharding::replicated()});

  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(inferResultShardings(partial, "tp")));
  EXPECT_EQ(message, "'tfm.gelu' op operand #0 is P on mesh axis 'tp': a "
                     "nonlinear op of a partial value is not the op of the "
                     "sum");
}

namespace {
/// A rule attached by a test: every result split on dimension 1.
struct SplitOnOneRule
    : ShardingRuleOpInterface::ExternalModel<SplitOnOneRule, tfm::GeluOp> {
  FailureOr<SmallVector<Sharding>> inferResultShardings(Operation *op,
                                                        StringRef) const {
    return SmallVector<Sharding>(op->getNumResults(), Sharding::split(1));
  }
};
} // namespace

TEST(ShardingInterfaces, AnAttachedModelIsTheRule) {
  // inferResultShardings has no list of ops: whatever model is attached is
  // the rule (here one that contradicts the layouts, to tell it apart).
  DialectRegistry registry;
  registry.insert<func::FuncDialect, tfm::TfmDialect, DistDialect>();
  registry.addExtension(+[](MLIRContext *ctx, tfm::TfmDialect *) {
    tfm::GeluOp::attachInterface<SplitOnOneRule>(*ctx);
  });
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parse(ctx, kGelu);
  ASSERT_TRUE(module);
  auto [partial, split] = gelus(*module);
  for (Operation *op : {partial, split}) {
    FailureOr<SmallVector<Sharding>> got = inferResultShardings(op, "tp");
    ASSERT_TRUE(succeeded(got));
    EXPECT_EQ(*got, SmallVector<Sharding>{Sharding::split(1)});
  }
}

TEST(ShardingInterfaces, ImportedModelsArePartitionable) {
  // sp-partition meets what the importer emits: every op of every imported
  // forward function (but func.return, which the pass rewrites itself) has
  // a rewrite and a layout rule.
  for (StringRef config : {"gpt2-tiny.json", "llama-tiny.json",
                           "neox-tiny.json", "pythia-1.4b.json"}) {
    auto buffer = llvm::MemoryBuffer::getFile(std::string(SEQPAR_EXAMPLES_DIR) +
                                              "/configs/" + config.str());
    ASSERT_TRUE(bool(buffer)) << config.str();
    MLIRContext ctx;
    withAllDialects(ctx);
    HFImportOptions options;
    options.seqLen = 8;
    auto module = importHFConfig((*buffer)->getBuffer(), options, &ctx);
    ASSERT_TRUE(bool(module)) << llvm::toString(module.takeError());
    int64_t ops = 0;
    (**module).walk([&](func::FuncOp func) {
      for (Operation &op : func.getBody().getOps()) {
        if (isa<func::ReturnOp>(op))
          continue;
        ++ops;
        EXPECT_TRUE(isa<PartitionOpInterface>(op))
            << config.str() << ": " << op.getName().getStringRef().str();
        EXPECT_TRUE(isa<ShardingRuleOpInterface>(op))
            << config.str() << ": " << op.getName().getStringRef().str();
      }
    });
    EXPECT_GT(ops, 10) << config.str();
  }
}

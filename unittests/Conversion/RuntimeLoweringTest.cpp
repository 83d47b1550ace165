//===- RuntimeLoweringTest.cpp - RuntimeLoweringOpInterface coverage ------===//

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace seqpar;

namespace {

/// The registered ops of `dialect` in `ctx`.
SmallVector<RegisteredOperationName> opsOf(MLIRContext &ctx,
                                           StringRef dialect) {
  SmallVector<RegisteredOperationName> ops;
  for (RegisteredOperationName op : ctx.getRegisteredOperations())
    if (op.getDialectNamespace() == dialect)
      ops.push_back(op);
  return ops;
}

// Every tfm and dist op that can reach convert-sp-to-runtime, that is every
// op that may stand in a function body, lowers. The exceptions are the two
// symbols the pass reads at module level: tfm.param (the parameter table,
// in declaration order) and dist.mesh (the mesh axes). As symbols they
// cannot stand in a function body (a func.func is no symbol table).
TEST(RuntimeLowering, EveryTfmAndDistOpImplementsIt) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadDialect<tfm::TfmDialect, dist::DistDialect>();
  const llvm::StringSet<> moduleLevel = {"tfm.param", "dist.mesh"};
  // Control flow, which the emitter itself lowers to blocks
  // (Lowering::lowerLoop): a micro-batch loop and its yield.
  const llvm::StringSet<> controlFlow = {"tfm.micro_batch_loop", "tfm.yield"};
  for (StringRef dialect : {"tfm", "dist"}) {
    SmallVector<RegisteredOperationName> ops = opsOf(ctx, dialect);
    // The dialect's ops are all there (tfm: 20 forward, 17 gradient, 4
    // optimizer ops and tfm.param; dist: 12 collectives and dist.mesh).
    EXPECT_GE(ops.size(), dialect == "tfm" ? 42u : 13u) << dialect.str();
    for (RegisteredOperationName op : ops) {
      bool lowers = op.hasInterface<RuntimeLoweringOpInterface>();
      if (controlFlow.contains(op.getStringRef())) {
        EXPECT_FALSE(lowers) << op.getStringRef().str();
      } else if (moduleLevel.contains(op.getStringRef())) {
        EXPECT_FALSE(lowers) << op.getStringRef().str();
        EXPECT_TRUE(op.hasInterface<SymbolOpInterface>())
            << op.getStringRef().str();
      } else {
        EXPECT_TRUE(lowers)
            << op.getStringRef().str() << " has no RuntimeLoweringOpInterface";
      }
    }
  }
  for (const auto &name : controlFlow)
    EXPECT_TRUE(RegisteredOperationName::lookup(name.getKey(), &ctx))
        << name.getKey().str();
  for (const auto &name : moduleLevel)
    EXPECT_TRUE(RegisteredOperationName::lookup(name.getKey(), &ctx))
        << name.getKey().str();
}

// The lowerings are external models of the conversion library: the dialects
// alone (tfm's and dist's ODS) do not implement the interface.
TEST(RuntimeLowering, DialectsAloneDoNotImplementIt) {
  MLIRContext ctx;
  ctx.loadDialect<tfm::TfmDialect, dist::DistDialect>();
  for (StringRef dialect : {"tfm", "dist"}) {
    SmallVector<RegisteredOperationName> ops = opsOf(ctx, dialect);
    EXPECT_FALSE(ops.empty()) << dialect.str();
    for (RegisteredOperationName op : ops)
      EXPECT_FALSE(op.hasInterface<RuntimeLoweringOpInterface>())
          << op.getStringRef().str();
  }
}

/// Records the calls an op's lowering makes, as text: every value the
/// emitter hands out is a block argument of a scratch block, named after
/// what it stands for.
class RecordingEmitter : public RuntimeEmitter {
public:
  explicit RecordingEmitter(MLIRContext *ctx)
      : ctx(ctx), loc(UnknownLoc::get(ctx)) {}

  Value ptr(Value tensor) override {
    return make("ptr(" + describe(tensor) + ")", IndexType::get(ctx));
  }
  Value i64(int64_t v) override {
    return make("i64 " + std::to_string(v), IntegerType::get(ctx, 64));
  }
  Value i32(int64_t v) override {
    return make("i32 " + std::to_string(v), IntegerType::get(ctx, 32));
  }
  Value f64(double v) override {
    return make("f64 " + std::to_string(v), Float64Type::get(ctx));
  }
  Value null() override { return make("null", IndexType::get(ctx)); }
  Value hyperparameter(StringRef name) override {
    return make("hyperparameter " + name.str(), Float64Type::get(ctx));
  }
  /// Slots in the kinds' order (lr 0, beta1 1, ...).
  int64_t hyperparameterSlot(StringRef name) override {
    return int64_t(*tfm::symbolizeHyperparameterKind(name));
  }
  void bindScalar(Value hostScalar, Value lowered) override {
    scalars[hostScalar] = lowered;
  }
  Value scalar(Value hostScalar) override { return scalars.lookup(hostScalar); }
  void call(StringRef name, ArrayRef<Value> args) override {
    std::string text = name.str() + "(";
    for (auto [i, a] : llvm::enumerate(args))
      text += (i ? ", " : "") + names.lookup(a);
    calls.push_back(text + ")");
  }
  void callAsync(StringRef name, ArrayRef<Value> args,
                 Operation *waitPoint) override {
    call(name, args);
    calls.back() += " waited at " + waitPoint->getName().getStringRef().str();
  }
  int32_t axisIndex(StringRef) const override { return -1; }
  int32_t splitAxis(Value, int64_t) const override { return -1; }
  int32_t zigzagAxis(Value, int64_t) const override { return -1; }
  int64_t paramIndex(StringRef) const override { return 0; }
  Value paramPointer(int64_t) override { return null(); }
  Value statePointer(int64_t) override { return null(); }
  Value masterPointer(int64_t) override { return null(); }
  Type paramElementType(int64_t) const override {
    return Float32Type::get(ctx);
  }
  SmallVector<int32_t, 2> zeroShardAxes(Value) const override { return {}; }
  std::tuple<Value, Value, Value> pointerArrays(ValueRange,
                                                ValueRange) override {
    return {null(), null(), null()};
  }
  std::pair<Value, Value> pointerArray(ValueRange) override {
    return {null(), null()};
  }
  Value bundle(StringRef name, ArrayRef<Value> fields) override {
    std::string text = name.str() + "{";
    for (auto [i, f] : llvm::enumerate(fields))
      text += (i ? ", " : "") + names.lookup(f);
    return make(text + "}", IndexType::get(ctx));
  }
  std::pair<Value, Value> workspace(Operation *op) override {
    auto w = dyn_cast<dist::WorkspaceOpInterface>(op);
    int64_t bytes = w ? w.getWorkspaceBytes() : 0;
    if (bytes == 0)
      return {null(), i64(0)};
    return {make("workspace(" + op->getName().getStringRef().str() + ")",
                 IndexType::get(ctx)),
            i64(bytes)};
  }

  SmallVector<std::string> calls;

private:
  Value make(std::string name, Type type) {
    Value v = scratch.addArgument(type, loc);
    names[v] = std::move(name);
    return v;
  }
  /// A function argument as %argN, an op's result as its op name.
  static std::string describe(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return "%arg" + std::to_string(arg.getArgNumber());
    return v.getDefiningOp()->getName().getStringRef().str();
  }

  MLIRContext *ctx;
  Location loc;
  Block scratch;
  llvm::DenseMap<Value, std::string> names;
  llvm::DenseMap<Value, Value> scalars;
};

// The shared elementwise models: one kernel call on the operand and result
// buffers and the element count, in the runtime's argument order.
TEST(RuntimeLowering, ElementwiseTemplates) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<2x3x4xf32>, %dy: tensor<2x3x4xf32>) {
      %s = tfm.silu %x : tensor<2x3x4xf32>
      %g = tfm.silu_grad %dy, %x : tensor<2x3x4xf32>
      %m = tfm.mul %x, %dy : tensor<2x3x4xf32>
      %a = tfm.add %dy, %x : tensor<2x3x4xf32>
      return
    }
  )mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  RecordingEmitter emitter(&ctx);
  module->walk([&](RuntimeLoweringOpInterface op) {
    EXPECT_TRUE(succeeded(op.lowerToRuntime(emitter)));
  });
  ASSERT_EQ(emitter.calls.size(), 4u);
  EXPECT_EQ(emitter.calls[0],
            "sprt_silu_f32(ptr(%arg0), ptr(tfm.silu), i64 24)");
  EXPECT_EQ(emitter.calls[1], "sprt_silu_grad_f32(ptr(%arg1), ptr(%arg0), "
                              "ptr(tfm.silu_grad), i64 24)");
  EXPECT_EQ(emitter.calls[2],
            "sprt_mul_f32(ptr(%arg0), ptr(%arg1), ptr(tfm.mul), i64 24)");
  EXPECT_EQ(emitter.calls[3],
            "sprt_add_f32(ptr(%arg1), ptr(%arg0), ptr(tfm.add), i64 24)");
}

// The fused collective GEMMs pass their workspace last: min(chunks, 2)
// chunks of every rank's rows (the axis size, 2, from the types).
TEST(RuntimeLowering, FusedOpsPassTheirWorkspace) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    dist.mesh @mesh ["tp" = 2]
    func.func @f(%x: tensor<8x2x4xf32>, %w: tensor<6x4xf32>,
                 %z: tensor<16x2x6xf32>, %v: tensor<4x6xf32>) {
      %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 4
          : (tensor<8x2x4xf32>, tensor<6x4xf32>) -> tensor<16x2x6xf32>
      %r = dist.matmul_reduce_scatter %z, %v on @mesh["tp"] dim 0 chunks 1
          : (tensor<16x2x6xf32>, tensor<4x6xf32>) -> tensor<8x2x4xf32>
      return
    }
  )mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  RecordingEmitter emitter(&ctx);
  module->walk([&](RuntimeLoweringOpInterface op) {
    EXPECT_TRUE(succeeded(op.lowerToRuntime(emitter)));
  });
  ASSERT_EQ(emitter.calls.size(), 2u);
  // 2 chunks x 2 ranks x (16 rows / 4 chunks) x 4 x 4 bytes.
  EXPECT_EQ(emitter.calls[0],
            "sprt_all_gather_linear_f32(ptr(%arg0), ptr(%arg1), null, "
            "ptr(dist.all_gather_matmul), i64 16, i64 4, i64 6, i32 0, i64 4, "
            "i32 -1, workspace(dist.all_gather_matmul), i64 256)");
  // 1 chunk x 2 ranks x 16 rows x 4 x 4 bytes.
  EXPECT_EQ(emitter.calls[1],
            "sprt_linear_reduce_scatter_f32(ptr(%arg2), ptr(%arg3), null, "
            "ptr(dist.matmul_reduce_scatter), i64 16, i64 6, i64 4, i32 0, "
            "i64 1, i32 -1, workspace(dist.matmul_reduce_scatter), i64 512)");
}

// The optimizer ops pass the step's hyperparameters, which the runtime
// sets per step, to their kernels: no value is baked into the call.
TEST(RuntimeLowering, OptimizerOpsReadTheStepsHyperparameters) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    tfm.param @w : tensor<8xf32> init ones
    func.func @f(%g: tensor<8xf32>, %sumsq: tensor<f32>) {
      %w = tfm.get_param @w : tensor<8xf32>
      %clip = tfm.hyperparameter grad_clip default 1.0
      %scale, %norm = tfm.clip_scale %sumsq max_norm %clip
          : tensor<f32> -> tensor<f32>, tensor<f32>
      %lr = tfm.hyperparameter lr default 1.0e-3
      %b1 = tfm.hyperparameter beta1 default 0.9
      %b2 = tfm.hyperparameter beta2 default 0.999
      %eps = tfm.hyperparameter eps default 1.0e-8
      %wd = tfm.hyperparameter weight_decay default 0.0
      tfm.adamw_update @w, %g scale %scale lr %lr betas %b1, %b2 eps %eps
          weight_decay %wd : tensor<8xf32>, tensor<f32>
      tfm.sgd_update @w, %g scale %scale lr %lr weight_decay %wd
          : tensor<8xf32>, tensor<f32>
      return
    }
  )mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  RecordingEmitter emitter(&ctx);
  module->walk([&](RuntimeLoweringOpInterface op) {
    EXPECT_TRUE(succeeded(op.lowerToRuntime(emitter)));
  });
  ASSERT_EQ(emitter.calls.size(), 3u);
  EXPECT_EQ(emitter.calls[0],
            "sprt_op_clip_scale(ptr(%arg1), hyperparameter grad_clip, f64 "
            "1.000000, ptr(tfm.clip_scale), ptr(tfm.clip_scale))");
  EXPECT_EQ(emitter.calls[1],
            "sprt_op_adamw(null, ptr(%arg0), null, null, ptr(tfm.clip_scale), "
            "i64 8, i32 0, hyperparameter beta1, hyperparameter beta2, "
            "hyperparameter eps, hyperparameter weight_decay, i32 -1, i32 -1)");
  EXPECT_EQ(emitter.calls[2],
            "sprt_op_sgd(null, ptr(%arg0), ptr(tfm.clip_scale), i64 8, "
            "i32 0, hyperparameter weight_decay, i32 -1, i32 -1)");
}

// The attention ops pass their shape and options as one sprt_attention_args
// bundle, built the same way by all four.
TEST(RuntimeLowering, AttentionOpsShareOneBundle) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    dist.mesh @mesh ["cp" = 2] roles [context]
    func.func @f(%q: tensor<4x2x8xf32>, %kv: tensor<4x2x4xf32>) {
      %a = tfm.attention %q, %kv, %kv heads 2 kv_heads 1 head_dim 4
          {causal, rotary_dim = 4 : i64, dropout_rate = 0.5 : f64,
           dropout_stream = 7 : i64}
          : tensor<4x2x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32>
          -> tensor<4x2x8xf32>
      %g:3 = tfm.attention_grad %a, %q, %kv, %kv heads 2 kv_heads 1
          head_dim 4 {causal, rotary_dim = 4 : i64, dropout_rate = 0.5 : f64,
           dropout_stream = 7 : i64}
          : tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x4xf32>,
            tensor<4x2x4xf32>
          -> tensor<4x2x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32>
      %o, %lse = dist.ring_attention %q, %kv, %kv on @mesh["cp"] heads 2
          kv_heads 1 head_dim 4 {dropout_stream = 3 : i64}
          : (tensor<4x2x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32>)
          -> (tensor<4x2x8xf32>, tensor<4x2x2xf32>)
      return
    }
  )mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  RecordingEmitter emitter(&ctx);
  module->walk([&](RuntimeLoweringOpInterface op) {
    EXPECT_TRUE(succeeded(op.lowerToRuntime(emitter)));
  });
  ASSERT_EQ(emitter.calls.size(), 3u);
  // S, B, heads, kv_heads, head_dim, rotary_dim, theta, dropout_rate,
  // stream, causal, document_causal, batch axis, head axis, sequence axis
  // (the recorder knows no mesh: every axis is -1).
  const std::string args =
      "sprt_attention_args{i64 4, i64 2, i64 2, i64 1, i64 4, i64 4, "
      "f64 10000.000000, f64 0.500000, i64 7, i32 1, i32 0, i32 -1, i32 -1, "
      "i32 -1}";
  EXPECT_EQ(emitter.calls[0], "sprt_op_attention(ptr(%arg0), ptr(%arg1), "
                              "ptr(%arg1), null, ptr(tfm.attention), " +
                                  args + ")");
  EXPECT_EQ(emitter.calls[1],
            "sprt_op_attention_grad(ptr(tfm.attention), ptr(%arg0), "
            "ptr(%arg1), ptr(%arg1), null, ptr(tfm.attention_grad), "
            "ptr(tfm.attention_grad), ptr(tfm.attention_grad), " +
                args + ")");
  EXPECT_EQ(emitter.calls[2],
            "sprt_op_ring_attention(ptr(%arg0), ptr(%arg1), ptr(%arg1), null, "
            "ptr(dist.ring_attention), ptr(dist.ring_attention), "
            "sprt_attention_args{i64 4, i64 2, i64 2, i64 1, i64 4, i64 0, "
            "f64 10000.000000, f64 0.000000, i64 3, i32 0, i32 0, i32 -1, "
            "i32 -1, i32 -1})");
}

} // namespace

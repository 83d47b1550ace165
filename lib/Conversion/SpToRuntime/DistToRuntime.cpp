//===- DistToRuntime.cpp - dist ops -> libsprt collectives ----------------===//
//
// RuntimeLoweringOpInterface for the dist collectives: one call into the
// runtime's collectives (runtime/include/sprt/runtime.h) per op, attached as
// external models so that dist does not depend on the runtime ABI. Ops with
// a workspace (WorkspaceOpInterface) pass it last: its pointer in the arena
// and its bytes, which the runtime checks against what it needs.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// Appends the workspace of `op` (pointer, bytes) to a call's arguments.
static void appendWorkspace(Operation *op, RuntimeEmitter &e,
                            SmallVectorImpl<Value> &args) {
  auto [workspace, bytes] = e.workspace(op);
  args.push_back(workspace);
  args.push_back(bytes);
}

/// all_gather_matmul and matmul_reduce_scatter (also the input gradient of a
/// column GEMM, with the weight layout flipped): one runtime call with the
/// GEMM's operands, the rows of this rank's block, the chunks and the
/// workspace. The f32 entry point `fn`_f32 when every tensor is f32; else
/// `fn`_widened_f32, with the input's dtype code after it, for a widened
/// gathered input (widensGatheredInput); else `fn`_typed, with each
/// tensor's code after it (0 for an absent bias), but for matmul_reduce_
/// scatter's result (f32: the kernel writes the sum).
template <typename OpT>
static LogicalResult collectiveLinear(OpT o, RuntimeEmitter &e, StringRef fn,
                                      int64_t rows) {
  if (o.getDim() != 0)
    return o.emitOpError() << "is lowered along dimension 0 only, got dim "
                           << o.getDim();
  auto [workspace, workspaceBytes] = e.workspace(o);
  bool widened = widensGatheredInput(o);
  bool typed = !widened && !allTensorsF32(o);
  bool typedResult = typed && isa<AllGatherMatmulOp>(o.getOperation());
  SmallVector<Value> args;
  auto add = [&](Value tensor, bool withDtype) {
    args.push_back(e.optionalPtr(tensor));
    if (withDtype)
      args.push_back(e.i32(tensor ? runtimeDtypeCode(tensor) : 0));
  };
  add(o.getInput(), typed || widened);
  add(o.getWeight(), typed);
  add(o.getBias(), typed);
  add(o.getResult(), typedResult);
  args.append({e.i64(rows), e.i64(e.lastDim(o.getInput())), e.i64(e.lastDim(o)),
               e.i32(o.getWeightLayout() == seqpar::WeightLayout::in_out),
               e.i64(o.getChunks()), e.axisOf(o.getAxis()), workspace,
               workspaceBytes});
  e.call((fn + (typed     ? "_typed"
                : widened ? "_widened_f32"
                          : "_f32"))
             .str(),
         args);
  return success();
}

static LogicalResult lowerOp(AllGatherMatmulOp o, RuntimeEmitter &e) {
  // The rows of this rank's input block.
  return collectiveLinear(o, e, "sprt_all_gather_linear",
                          e.numElements(o.getInput()) /
                              e.lastDim(o.getInput()));
}

/// sprt_all_gather_linear_gelu_typed: the linear's operands each with its
/// type code, pre (null where nothing reads it) and the result of one type,
/// the rows of this rank's input block, K, N, weight_in_out, tanh, the
/// chunks, the axis and the workspace. The runtime widens the gathered
/// input for f32 GEMMs where every other tensor is f32 (widensGatheredInput).
static LogicalResult lowerOp(AllGatherMatmulGeluOp o, RuntimeEmitter &e) {
  if (o.getDim() != 0)
    return o.emitOpError() << "is lowered along dimension 0 only, got dim "
                           << o.getDim();
  auto [workspace, workspaceBytes] = e.workspace(o);
  Value bias = o.getBias();
  int64_t k = e.lastDim(o.getInput());
  e.call("sprt_all_gather_linear_gelu_typed",
         {e.ptr(o.getInput()), e.i32(runtimeDtypeCode(o.getInput())),
          e.ptr(o.getWeight()), e.i32(runtimeDtypeCode(o.getWeight())),
          e.optionalPtr(bias), e.i32(bias ? runtimeDtypeCode(bias) : 0),
          e.optionalPtr(o.getPre().use_empty() ? Value() : o.getPre()),
          e.ptr(o.getResult()), e.i32(runtimeDtypeCode(o.getResult())),
          e.i64(e.numElements(o.getInput()) / k), e.i64(k),
          e.i64(e.lastDim(o.getResult())),
          e.i32(o.getWeightLayout() == seqpar::WeightLayout::in_out),
          e.i32(o.getApproximate() == seqpar::GeluApproximation::tanh),
          e.i64(o.getChunks()), e.axisOf(o.getAxis()), workspace,
          workspaceBytes});
  return success();
}

static LogicalResult lowerOp(MatmulReduceScatterOp o, RuntimeEmitter &e) {
  // The rows of this rank's output block.
  return collectiveLinear(o, e, "sprt_linear_reduce_scatter",
                          e.numElements(o) / e.lastDim(o));
}

static LogicalResult lowerOp(AllGatherMatmulGradWeightOp o, RuntimeEmitter &e) {
  if (o.getDim() != 0)
    return o.emitOpError() << "is lowered along dimension 0 only, got dim "
                           << o.getDim();
  Value x = o.getInput();
  // The dys and the weight gradients as pointer arrays, with each dy's
  // elements (the runtime divides by the gathered rows for its `out`).
  auto [dys, dws, dySizes] = e.pointerArrays(o.getDys(), o.getDweights());
  auto [workspace, workspaceBytes] = e.workspace(o);
  bool widened = widensGatheredInput(o);
  bool typed = !widened && !allTensorsF32(o);
  SmallVector<Value> args{e.ptr(x)};
  if (typed || widened)
    args.push_back(e.i32(runtimeDtypeCode(x)));
  args.append({e.i32(int64_t(o.getDys().size())), dys});
  if (typed)
    args.push_back(e.i32(runtimeDtypeCode(o.getDys().front())));
  args.append({dws, dySizes, e.i64(e.numElements(x) / e.lastDim(x)),
               e.i64(e.lastDim(x)),
               e.i32(o.getWeightLayout() == seqpar::WeightLayout::in_out),
               e.i64(o.getChunks()), e.axisOf(o.getAxis()), workspace,
               workspaceBytes});
  e.call(typed     ? "sprt_all_gather_linear_grad_weight_typed"
         : widened ? "sprt_all_gather_linear_grad_weight_widened_f32"
                   : "sprt_all_gather_linear_grad_weight_f32",
         args);
  return success();
}

/// 1 when `split` (the split side of a collective) is split in zigzag along
/// `dim` over `axis`: the runtime reorders its two chunks.
static int64_t zigzagOn(Value split, StringRef axis, int64_t dim) {
  Sharding s = typeSharding(split, axis);
  return s.isZigzag() && s.dim == dim ? 1 : 0;
}

static LogicalResult lowerOp(AllGatherOp o, RuntimeEmitter &e) {
  SmallVector<Value> args = e.collectiveArgs(o.getInput(), o, true);
  args.push_back(e.i32(o.getDim()));
  args.push_back(e.axisOf(o.getAxis()));
  args.push_back(e.i32(zigzagOn(o.getInput(), o.getAxis(), o.getDim())));
  appendWorkspace(o, e, args);
  e.call("sprt_all_gather", args);
  return success();
}

static LogicalResult lowerOp(ReduceScatterOp o, RuntimeEmitter &e) {
  SmallVector<Value> args = e.collectiveArgs(o.getInput(), o, false);
  args.push_back(e.i32(o.getDim()));
  args.push_back(e.axisOf(o.getAxis()));
  args.push_back(e.i32(zigzagOn(o, o.getAxis(), o.getDim())));
  appendWorkspace(o, e, args);
  e.call("sprt_reduce_scatter_f32", args);
  return success();
}

static LogicalResult lowerOp(AllReduceOp o, RuntimeEmitter &e) {
  e.call("sprt_all_reduce_f32",
         {e.ptr(o.getInput()), e.ptr(o), e.i64(e.numElements(o)),
          e.i32(int64_t(o.getKind())), e.axisOf(o.getAxis())});
  return success();
}

static LogicalResult lowerOp(LocalSliceOp o, RuntimeEmitter &e) {
  SmallVector<Value> args = e.collectiveArgs(o.getInput(), o, true);
  args.push_back(e.i32(o.getDim()));
  args.push_back(e.axisOf(o.getAxis()));
  args.push_back(e.i32(zigzagOn(o, o.getAxis(), o.getDim())));
  e.call("sprt_local_slice", args);
  return success();
}

static LogicalResult lowerOp(AllToAllOp o, RuntimeEmitter &e) {
  SmallVector<Value> args = e.collectiveArgs(o.getInput(), o, true);
  args.push_back(e.i32(o.getSplitDim()));
  args.push_back(e.i32(o.getConcatDim()));
  args.push_back(e.axisOf(o.getAxis()));
  appendWorkspace(o, e, args);
  e.call("sprt_all_to_all", args);
  return success();
}

static LogicalResult lowerOp(SendOp o, RuntimeEmitter &e) {
  Value in = o.getInput();
  e.call("sprt_send", {e.ptr(in), e.i64(e.numElements(in) * e.elemBytes(in)),
                       e.i64(o.getOffset()), e.axisOf(o.getAxis())});
  return success();
}

static LogicalResult lowerOp(RecvOp o, RuntimeEmitter &e) {
  e.call("sprt_recv", {e.ptr(o), e.i64(e.numElements(o) * e.elemBytes(o)),
                       e.i64(o.getOffset()), e.axisOf(o.getAxis())});
  return success();
}

static LogicalResult lowerOp(AllGatherParamOp o, RuntimeEmitter &e) {
  auto t = cast<RankedTensorType>(o.getType());
  std::optional<StringRef> within = o.getWithin();
  e.call("sprt_all_gather_param",
         {e.paramPointer(e.paramIndex(o.getParam())), e.i64(t.getNumElements()),
          e.i64(llvm::divideCeil(t.getElementTypeBitWidth(), 8)),
          e.axisOf(o.getAxis()), within ? e.axisOf(*within) : e.i32(-1)});
  return success();
}

/// The runtime's element type of a coalesced reduction (SPRT_DTYPE_* in
/// sprt/kernels.h): bf16 where it reduces natively in bf16, else f32 (the
/// type check admits no other).
static int64_t coalescedDtype(Bf16ReductionOpInterface o) {
  return o.reducesNativelyInBf16() ? 1 : 0;
}

/// Calls `name`, or with `async` its `_start` form, waited for at the op's
/// wait point (asyncWaitPoint).
static void callMaybeAsync(Operation *op, bool async, StringRef name,
                           ArrayRef<Value> args, RuntimeEmitter &e) {
  if (!async)
    return e.call(name, args);
  e.callAsync((name + "_start").str(), args, asyncWaitPoint(op));
}

static LogicalResult lowerOp(ReduceScatterCoalescedOp o, RuntimeEmitter &e) {
  auto [ins, outs, sizes] = e.pointerArrays(o.getInputs(), o.getResults());
  auto [workspace, workspaceBytes] = e.workspace(o);
  callMaybeAsync(o, o.getAsync(), "sprt_reduce_scatter_coalesced",
                 {e.i32(int64_t(o.getInputs().size())), ins, outs, sizes,
                  e.i32(coalescedDtype(o)), e.axisOf(o.getAxis()), workspace,
                  workspaceBytes},
                 e);
  return success();
}

static LogicalResult lowerOp(AllReduceCoalescedOp o, RuntimeEmitter &e) {
  auto [ins, outs, sizes] = e.pointerArrays(o.getInputs(), o.getResults());
  int64_t n = o.getInputs().size();
  auto [workspace, workspaceBytes] = e.workspace(o);
  callMaybeAsync(o, o.getAsync(), "sprt_all_reduce_coalesced",
                 {e.i32(n), ins, outs, sizes, e.i32(coalescedDtype(o)),
                  e.i32(int64_t(o.getKind())), e.axisOf(o.getAxis()), workspace,
                  workspaceBytes},
                 e);
  return success();
}

/// Ring attention and its backward: sprt_op_ring_attention(_grad) with
/// tfm.attention's arguments, the forward's lse, and the context axis as the
/// bundle's sequence axis.
static LogicalResult lowerOp(RingAttentionOp o, RuntimeEmitter &e) {
  Value q = o.getQ();
  Value args = attentionArgs(e, o, q, e.axisIndex(o.getAxis()));
  e.call("sprt_op_ring_attention",
         {e.ptr(q), e.ptr(o.getK()), e.ptr(o.getV()),
          e.optionalPtr(o.getPositions()), e.ptr(o.getResult()),
          e.ptr(o.getLse()), args});
  return success();
}

static LogicalResult lowerOp(RingAttentionGradOp o, RuntimeEmitter &e) {
  Value q = o.getQ();
  Value args = attentionArgs(e, o, q, e.axisIndex(o.getAxis()));
  e.call("sprt_op_ring_attention_grad",
         {e.ptr(o.getDout()), e.ptr(q), e.ptr(o.getK()), e.ptr(o.getV()),
          e.optionalPtr(o.getPositions()), e.ptr(o.getResult()),
          e.ptr(o.getLse()), e.ptr(o.getDq()), e.ptr(o.getDk()),
          e.ptr(o.getDv()), args});
  return success();
}

/// Attaches, to each op, its lowerOp overload above.
template <typename... OpTs> static void attachDistLowerings(MLIRContext *ctx) {
  (OpTs::template attachInterface<FunctionLowering<OpTs, lowerOp>>(*ctx), ...);
}

void seqpar::registerDistRuntimeLoweringModels(DialectRegistry &registry) {
  // Every dist op but dist.mesh, which the pass reads as the module's mesh.
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    attachDistLowerings<AllGatherOp, ReduceScatterOp, AllReduceOp,
                        AllReduceCoalescedOp, ReduceScatterCoalescedOp,
                        AllGatherParamOp, AllToAllOp, LocalSliceOp, SendOp,
                        RecvOp, AllGatherMatmulOp, AllGatherMatmulGeluOp,
                        MatmulReduceScatterOp, AllGatherMatmulGradWeightOp,
                        RingAttentionOp, RingAttentionGradOp>(ctx);
  });
}

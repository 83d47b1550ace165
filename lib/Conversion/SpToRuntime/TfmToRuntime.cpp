//===- TfmToRuntime.cpp - tfm ops -> libsprt kernels ----------------------===//
//
// RuntimeLoweringOpInterface for the tfm ops (forward, gradient and
// optimizer ops): one call into libsprt's kernels
// (runtime/include/sprt/kernels.h) per op, attached as external models so
// that tfm does not depend on the runtime ABI.
//
// A new unary elementwise op with a kernel `void k_f32(const float *in,
// float *out, int64_t n)` (and `void k_typed(const void *in, void *out,
// int64_t n, int32_t dtype)` if it has MapsElementsAsStored) and a gradient
// kernel `void k_grad_f32(const float *dy, const float *x, float *dx,
// int64_t n)` (and `k_grad_typed(..., int32_t dtype)` likewise)
// needs no code here beyond naming both kernels below and attaching
// UnaryKernelLowering and UnaryGradKernelLowering in
// registerTfmRuntimeLoweringModels.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

namespace {
/// Calls the kernel of an elementwise map whose result is `out`:
/// `base`_f32(args...) on f32 tensors, `base`_typed(args..., dtype) on the
/// bf16 / f16 tensors of a map that runs on them as stored
/// (MapsElementsAsStored).
void callMap(RuntimeEmitter &e, StringRef base, Value out,
             SmallVector<Value> args) {
  bool typed = !cast<ShapedType>(out.getType()).getElementType().isF32();
  if (typed)
    args.push_back(e.i32(runtimeDtypeCode(out)));
  e.call((base + (typed ? "_typed" : "_f32")).str(), args);
}

/// A unary elementwise op (`$input` -> one result of the same type) computed
/// by `Kernel`_f32(in, out, n) (`Kernel`_typed(in, out, n, dtype) on the
/// bf16 / f16 tensors of a MapsElementsAsStored op).
template <typename OpT, const char *Kernel>
struct UnaryKernelLowering : RuntimeLoweringOpInterface::ExternalModel<
                                 UnaryKernelLowering<OpT, Kernel>, OpT> {
  LogicalResult lowerToRuntime(Operation *op, RuntimeEmitter &e) const {
    auto o = cast<OpT>(op);
    callMap(e, Kernel, o,
            {e.ptr(o.getInput()), e.ptr(o), e.i64(e.numElements(o))});
    return success();
  }
};

/// The gradient of a unary elementwise op (`$dy`, `$input` -> `dx` of the
/// same type) computed by `Kernel`_f32(dy, x, dx, n) (`Kernel`_typed(dy, x,
/// dx, n, dtype) on bf16 / f16 tensors, MapsElementsAsStored).
template <typename OpT, const char *Kernel>
struct UnaryGradKernelLowering
    : RuntimeLoweringOpInterface::ExternalModel<
          UnaryGradKernelLowering<OpT, Kernel>, OpT> {
  LogicalResult lowerToRuntime(Operation *op, RuntimeEmitter &e) const {
    auto o = cast<OpT>(op);
    callMap(e, Kernel, o,
            {e.ptr(o.getDy()), e.ptr(o.getInput()), e.ptr(o),
             e.i64(e.numElements(o))});
    return success();
  }
};

/// A binary elementwise op (two operands and a result of one type) computed
/// by `Kernel`_f32(a, b, out, n) (or `Kernel`_typed, as above).
template <typename OpT, const char *Kernel>
struct BinaryKernelLowering : RuntimeLoweringOpInterface::ExternalModel<
                                  BinaryKernelLowering<OpT, Kernel>, OpT> {
  LogicalResult lowerToRuntime(Operation *op, RuntimeEmitter &e) const {
    Value out = op->getResult(0);
    callMap(e, Kernel, out,
            {e.ptr(op->getOperand(0)), e.ptr(op->getOperand(1)), e.ptr(out),
             e.i64(e.numElements(out))});
    return success();
  }
};

// The kernels of the elementwise ops (the maps' without their suffix).
constexpr char kSilu[] = "sprt_silu";
constexpr char kSiluGrad[] = "sprt_silu_grad";
constexpr char kRelu[] = "sprt_relu";
constexpr char kReluGrad[] = "sprt_relu_grad";
constexpr char kMul[] = "sprt_mul";
constexpr char kAdd[] = "sprt_add";
} // namespace

// The other ops, one lowerOp overload each.

/// tfm.get_param: no call; its buffer is the parameter table's entry, which
/// the emitter loads once where an op first reads it.
static LogicalResult lowerOp(GetParamOp, RuntimeEmitter &) { return success(); }

/// tfm.micro_batch: no call; the pass reads the micro-batch in place (its
/// buffer is the argument's, at the micro-batch's offset).
static LogicalResult lowerOp(MicroBatchOp, RuntimeEmitter &) {
  return success();
}

static LogicalResult lowerOp(PositionIdsOp o, RuntimeEmitter &e) {
  e.call("sprt_op_position_ids",
         {e.ptr(o), e.i64(e.dim(o, 0)), e.i64(e.dim(o, 1)),
          e.i32(e.splitAxis(o, 0)), e.i32(e.zigzagAxis(o, 0))});
  return success();
}

// A bf16 / f16 table: its rows copied as stored (MovesBytes).
static LogicalResult lowerOp(EmbeddingOp o, RuntimeEmitter &e) {
  SmallVector<Value> args{e.ptr(o.getIds()),
                          e.ptr(o.getTable()),
                          e.ptr(o),
                          e.i64(e.numElements(o.getIds())),
                          e.i64(e.dim(o.getTable(), 0)),
                          e.i64(e.dim(o.getTable(), 1)),
                          e.i32(e.splitAxis(o.getTable(), 0))};
  if (o.getType().getElementType().isF32()) {
    e.call("sprt_op_embedding", args);
    return success();
  }
  args.push_back(e.i32(runtimeDtypeCode(o)));
  e.call("sprt_op_embedding_typed", args);
  return success();
}

/// The call of a GEMM or a norm (StoragePrecisionOpInterface): the pointers
/// of `tensors` (null for an absent bias or gradient), each followed by its
/// element type's code (0 when absent) in the typed kernel `name`_typed,
/// then `sizes`; the f32 kernel `name`_f32 when every tensor is f32.
static void callStored(RuntimeEmitter &e, Operation *op, StringRef name,
                       ArrayRef<Value> tensors, ArrayRef<Value> sizes,
                       bool typed) {
  SmallVector<Value> args;
  for (Value t : tensors) {
    args.push_back(e.optionalPtr(t));
    if (typed)
      args.push_back(e.i32(t ? runtimeDtypeCode(t) : 0));
  }
  llvm::append_range(args, sizes);
  e.call((name + (typed ? "_typed" : "_f32")).str(), args);
}
static void callStored(RuntimeEmitter &e, Operation *op, StringRef name,
                       ArrayRef<Value> tensors, ArrayRef<Value> sizes) {
  callStored(e, op, name, tensors, sizes, !allTensorsF32(op));
}

/// A norm's rows and row width, then its eps.
static SmallVector<Value> normSizes(RuntimeEmitter &e, Value x, APFloat eps) {
  int64_t h = e.lastDim(x);
  return {e.i64(e.numElements(x) / h), e.i64(h), e.f64(eps.convertToDouble())};
}

static LogicalResult lowerOp(LayerNormOp o, RuntimeEmitter &e) {
  callStored(e, o, "sprt_layer_norm",
             {o.getInput(), o.getWeight(), o.getBias(), o},
             normSizes(e, o.getInput(), o.getEps()));
  return success();
}

static LogicalResult lowerOp(RmsNormOp o, RuntimeEmitter &e) {
  callStored(e, o, "sprt_rms_norm", {o.getInput(), o.getWeight(), o},
             normSizes(e, o.getInput(), o.getEps()));
  return success();
}

/// A dropout's operands after its pointers: rank, the local shape, the
/// mesh axes splitting each dimension, the zigzag axis of dim 0, rate and
/// stream (sprt_op_dropout).
static LogicalResult dropoutArgs(Operation *op, RankedTensorType t, double rate,
                                 int64_t stream, RuntimeEmitter &e,
                                 SmallVector<Value> &args) {
  if (t.getRank() > 3)
    return op->emitOpError() << "dropout lowers for rank <= 3";
  Value result = op->getResult(0);
  args.push_back(e.i32(t.getRank()));
  for (int64_t d = 0; d < 3; ++d)
    args.push_back(e.i64(d < t.getRank() ? t.getDimSize(d) : 1));
  for (int64_t d = 0; d < 3; ++d)
    args.push_back(e.i32(d < t.getRank() ? e.splitAxis(result, d) : -1));
  args.push_back(e.i32(e.zigzagAxis(result, 0)));
  args.push_back(e.f64(rate));
  args.push_back(e.i64(stream));
  return success();
}

static LogicalResult lowerOp(DropoutOp o, RuntimeEmitter &e) {
  SmallVector<Value> args{e.ptr(o.getInput()), e.ptr(o)};
  if (failed(dropoutArgs(o, o.getType(), o.getRate().convertToDouble(),
                         o.getStream(), e, args)))
    return failure();
  // bf16 / f16 storage: read and written as stored (MapsElementsAsStored).
  if (!o.getType().getElementType().isF32()) {
    args.push_back(e.i32(runtimeDtypeCode(o)));
    e.call("sprt_op_dropout_typed", args);
    return success();
  }
  e.call("sprt_op_dropout", args);
  return success();
}

// The fused sums and norms have only a typed form. With dropout: the
// sum's pointers, the norm's tensors and their types, the dropout's
// operands, the sum's type and eps (sprt_op_dropout_add_*norm_typed).
template <typename AddNormOp>
static LogicalResult lowerAddNorm(AddNormOp o, RuntimeEmitter &e,
                                  StringRef norm, ArrayRef<Value> weights) {
  if (!o.getDropout()) {
    SmallVector<Value> tensors{o.getLhs(), o.getRhs()};
    llvm::append_range(tensors, weights);
    tensors.append({o.getSum(), o.getResult()});
    callStored(e, o, ("sprt_add_" + norm).str(), tensors,
               normSizes(e, o.getLhs(), o.getEps()), /*typed=*/true);
    return success();
  }
  SmallVector<Value> args{e.ptr(o.getLhs()), e.ptr(o.getRhs())};
  for (Value w : weights) {
    args.push_back(e.optionalPtr(w));
    args.push_back(e.i32(w ? runtimeDtypeCode(w) : 0));
  }
  args.append({e.ptr(o.getSum()), e.ptr(o.getResult()),
               e.i32(runtimeDtypeCode(o.getResult()))});
  if (failed(dropoutArgs(o, o.getSum().getType(),
                         o.getDropout()->convertToDouble(), *o.getStream(), e,
                         args)))
    return failure();
  args.append({e.i32(runtimeDtypeCode(o.getSum())),
               e.f64(o.getEps().convertToDouble())});
  e.call(("sprt_op_dropout_add_" + norm + "_typed").str(), args);
  return success();
}

static LogicalResult lowerOp(AddLayerNormOp o, RuntimeEmitter &e) {
  return lowerAddNorm(o, e, "layer_norm", {o.getWeight(), o.getBias()});
}

static LogicalResult lowerOp(AddRmsNormOp o, RuntimeEmitter &e) {
  return lowerAddNorm(o, e, "rms_norm", {o.getWeight()});
}

static LogicalResult lowerOp(DropoutAddOp o, RuntimeEmitter &e) {
  SmallVector<Value> args{e.ptr(o.getInput()), e.ptr(o.getResidual()),
                          e.ptr(o)};
  if (failed(dropoutArgs(o, o.getType(), o.getRate().convertToDouble(),
                         o.getStream(), e, args)))
    return failure();
  args.push_back(e.i32(runtimeDtypeCode(o)));
  e.call("sprt_op_dropout_add_typed", args);
  return success();
}

static LogicalResult lowerOp(GeluOp o, RuntimeEmitter &e) {
  callMap(e, "sprt_gelu", o,
          {e.ptr(o.getInput()), e.ptr(o), e.i64(e.numElements(o)),
           e.i32(o.getApproximate() == GeluApproximation::tanh)});
  return success();
}

static LogicalResult lowerOp(BiasAddOp o, RuntimeEmitter &e) {
  int64_t h = e.lastDim(o);
  e.call("sprt_bias_add_f32",
         {e.ptr(o.getInput()), e.ptr(o.getBias()), e.ptr(o),
          e.i64(e.numElements(o) / h), e.i64(h)});
  return success();
}

static LogicalResult lowerOp(LinearOp o, RuntimeEmitter &e) {
  int64_t k = e.lastDim(o.getInput()), n = e.lastDim(o);
  callStored(e, o, "sprt_linear",
             {o.getInput(), o.getWeight(), o.getBias(), o.getResult()},
             {e.i64(e.numElements(o.getInput()) / k), e.i64(k), e.i64(n),
              e.i32(o.getWeightLayout() == WeightLayout::in_out)});
  return success();
}

/// sprt_linear_gelu_typed: the linear's operands each with its type code,
/// pre (null where nothing reads it) and the result of one type.
static LogicalResult lowerOp(LinearGeluOp o, RuntimeEmitter &e) {
  int64_t k = e.lastDim(o.getInput()), n = e.lastDim(o.getResult());
  Value bias = o.getBias();
  e.call("sprt_linear_gelu_typed",
         {e.ptr(o.getInput()), e.i32(runtimeDtypeCode(o.getInput())),
          e.ptr(o.getWeight()), e.i32(runtimeDtypeCode(o.getWeight())),
          e.optionalPtr(bias), e.i32(bias ? runtimeDtypeCode(bias) : 0),
          e.optionalPtr(o.getPre().use_empty() ? Value() : o.getPre()),
          e.ptr(o.getResult()), e.i32(runtimeDtypeCode(o.getResult())),
          e.i64(e.numElements(o.getInput()) / k), e.i64(k), e.i64(n),
          e.i32(o.getWeightLayout() == WeightLayout::in_out),
          e.i32(o.getApproximate() == GeluApproximation::tanh)});
  return success();
}

/// sprt_linear_gelu_grad_typed: dy, w (each with its type code), pre, dx
/// (of pre's type), dbias or null (its code or 0), M, K, N, weight_in_out,
/// tanh.
static LogicalResult lowerOp(LinearGeluGradOp o, RuntimeEmitter &e) {
  int64_t n = e.lastDim(o.getDy()), k = e.lastDim(o.getDx());
  Value dbias = o.getDbias();
  e.call("sprt_linear_gelu_grad_typed",
         {e.ptr(o.getDy()), e.i32(runtimeDtypeCode(o.getDy())),
          e.ptr(o.getWeight()), e.i32(runtimeDtypeCode(o.getWeight())),
          e.ptr(o.getPre()), e.ptr(o.getDx()),
          e.i32(runtimeDtypeCode(o.getDx())), e.optionalPtr(dbias),
          e.i32(dbias ? runtimeDtypeCode(dbias) : 0),
          e.i64(e.numElements(o.getDx()) / k), e.i64(k), e.i64(n),
          e.i32(o.getWeightLayout() == WeightLayout::in_out),
          e.i32(o.getApproximate() == GeluApproximation::tanh)});
  return success();
}

/// sprt_swiglu_typed(gate, up, y, n, dtype): every type, f32 included.
static LogicalResult lowerOp(SwigluOp o, RuntimeEmitter &e) {
  e.call("sprt_swiglu_typed",
         {e.ptr(o.getGate()), e.ptr(o.getUp()), e.ptr(o),
          e.i64(e.numElements(o)), e.i32(runtimeDtypeCode(o.getResult()))});
  return success();
}

/// sprt_swiglu_grad_typed(dy, gate, up, dgate, dup, n, dtype).
static LogicalResult lowerOp(SwigluGradOp o, RuntimeEmitter &e) {
  e.call("sprt_swiglu_grad_typed",
         {e.ptr(o.getDy()), e.ptr(o.getGate()), e.ptr(o.getUp()),
          e.ptr(o.getDgate()), e.ptr(o.getDup()),
          e.i64(e.numElements(o.getDy())), e.i32(runtimeDtypeCode(o.getDy()))});
  return success();
}

/// The bytes of an element of `v` (the head reshapes move elements).
static Value elemBytes(RuntimeEmitter &e, Value v) {
  return e.i32(
      int32_t(cast<ShapedType>(v.getType()).getElementTypeBitWidth() / 8));
}

static LogicalResult lowerOp(QkvSplitOp o, RuntimeEmitter &e) {
  e.call(
      "sprt_qkv_split",
      {e.ptr(o.getInput()), e.ptr(o.getQ()), e.ptr(o.getK()), e.ptr(o.getV()),
       e.i64(e.numElements(o.getInput()) / e.lastDim(o.getInput())),
       e.i64(o.getNumHeads()), e.i64(o.getNumKvHeads()), e.i64(o.getHeadDim()),
       e.i32(o.getPacking() == QkvPacking::heads), elemBytes(e, o.getInput())});
  return success();
}

static LogicalResult lowerOp(RepeatHeadsOp o, RuntimeEmitter &e) {
  e.call("sprt_repeat_heads",
         {e.ptr(o.getInput()), e.ptr(o),
          e.i64(e.numElements(o.getInput()) / e.lastDim(o.getInput())),
          e.i64(o.getNumHeads()), e.i64(o.getHeadDim()), e.i64(o.getFactor()),
          elemBytes(e, o.getInput())});
  return success();
}

/// `name`(args...) on f32 tensors, `name`_typed(args..., dtype) on the bf16
/// / f16 tensors of an attention kept as stored (AttendsAsStored: every
/// float tensor of the op has q's type, but the statistics, f32).
static void callAttention(RuntimeEmitter &e, StringRef name, Value q,
                          SmallVector<Value> args) {
  bool typed = !cast<ShapedType>(q.getType()).getElementType().isF32();
  if (typed)
    args.push_back(e.i32(runtimeDtypeCode(q)));
  e.call((name + (typed ? "_typed" : "")).str(), args);
}

static LogicalResult lowerOp(AttentionOp o, RuntimeEmitter &e) {
  Value q = o.getQ();
  Value args = attentionArgs(e, o, q, e.zigzagAxis(q, 0));
  if (Value lse = o.getLse()) {
    callAttention(e, "sprt_op_attention_lse", q,
                  {e.ptr(q), e.ptr(o.getK()), e.ptr(o.getV()),
                   e.optionalPtr(o.getPositions()), e.ptr(o.getResult()),
                   e.ptr(lse), args});
    return success();
  }
  callAttention(e, "sprt_op_attention", q,
                {e.ptr(q), e.ptr(o.getK()), e.ptr(o.getV()),
                 e.optionalPtr(o.getPositions()), e.ptr(o.getResult()), args});
  return success();
}

static LogicalResult lowerOp(LogitsMaxOp o, RuntimeEmitter &e) {
  int64_t v = e.lastDim(o.getLogits());
  e.call("sprt_logits_max_f32",
         {e.ptr(o.getLogits()), e.ptr(o),
          e.i64(e.numElements(o.getLogits()) / v), e.i64(v)});
  return success();
}

static LogicalResult lowerOp(LogitsSumExpOp o, RuntimeEmitter &e) {
  int64_t v = e.lastDim(o.getLogits());
  e.call("sprt_logits_sumexp_f32",
         {e.ptr(o.getLogits()), e.ptr(o.getMax()), e.ptr(o),
          e.i64(e.numElements(o.getLogits()) / v), e.i64(v)});
  return success();
}

static LogicalResult lowerOp(LabelLogitOp o, RuntimeEmitter &e) {
  Value l = o.getLogits();
  int64_t v = e.lastDim(l);
  e.call(
      "sprt_op_label_logit",
      {e.ptr(l), e.ptr(o.getLabels()), e.ptr(o), e.i64(e.numElements(l) / v),
       e.i64(v),
       e.i32(e.splitAxis(l, cast<RankedTensorType>(l.getType()).getRank() - 1)),
       e.i64(o.getIgnoreIndex())});
  return success();
}

static LogicalResult lowerOp(CrossEntropyFromStatsOp o, RuntimeEmitter &e) {
  e.call("sprt_cross_entropy_from_stats_f32",
         {e.ptr(o.getMax()), e.ptr(o.getSumexp()), e.ptr(o.getLabelLogit()),
          e.ptr(o.getLabels()), e.optionalPtr(o.getCount()), e.ptr(o),
          e.i64(e.numElements(o.getLabels())), e.i64(o.getIgnoreIndex())});
  return success();
}

/// The logits' pointer, followed by their element type's code when they are
/// bf16 / f16 (the loss kernels' `_typed` variants); whether they are.
static bool logitsArgs(RuntimeEmitter &e, Value logits,
                       SmallVector<Value> &args) {
  args.push_back(e.ptr(logits));
  if (cast<ShapedType>(logits.getType()).getElementType().isF32())
    return false;
  args.push_back(e.i32(runtimeDtypeCode(logits)));
  return true;
}

static LogicalResult lowerOp(CrossEntropyOp o, RuntimeEmitter &e) {
  int64_t v = e.lastDim(o.getLogits());
  SmallVector<Value> args;
  bool typed = logitsArgs(e, o.getLogits(), args);
  args.push_back(e.ptr(o.getLabels()));
  args.push_back(e.optionalPtr(o.getCount()));
  args.push_back(e.ptr(o));
  args.push_back(e.i64(e.numElements(o.getLabels())));
  args.push_back(e.i64(v));
  args.push_back(e.i64(o.getIgnoreIndex()));
  e.call(typed ? "sprt_cross_entropy_typed" : "sprt_cross_entropy_f32", args);
  return success();
}

static LogicalResult lowerOp(LabelCountOp o, RuntimeEmitter &e) {
  e.call("sprt_label_count_f32",
         {e.ptr(o.getLabels()), e.ptr(o), e.i64(e.numElements(o.getLabels())),
          e.i64(o.getIgnoreIndex())});
  return success();
}

static LogicalResult lowerOp(LinearGradInputOp o, RuntimeEmitter &e) {
  int64_t n = e.lastDim(o.getDy()), k = e.lastDim(o);
  callStored(e, o, "sprt_linear_grad_input",
             {o.getDy(), o.getWeight(), o.getDx()},
             {e.i64(e.numElements(o) / k), e.i64(k), e.i64(n),
              e.i32(o.getWeightLayout() == WeightLayout::in_out)});
  return success();
}

static LogicalResult lowerOp(LinearGradWeightOp o, RuntimeEmitter &e) {
  int64_t k = e.lastDim(o.getInput()), n = e.lastDim(o.getDy());
  SmallVector<Value> sizes{e.i64(e.numElements(o.getInput()) / k), e.i64(k),
                           e.i64(n),
                           e.i32(o.getWeightLayout() == WeightLayout::in_out)};
  if (!allTensorsF32(o))
    sizes.push_back(e.i32(0)); // the typed kernel's accumulate: overwrite dw
  callStored(e, o, "sprt_linear_grad_weight",
             {o.getInput(), o.getDy(), o.getDweight()}, sizes);
  return success();
}

/// sprt_linear_grad_weight_bias_typed: x, dy, dw, db each with its type
/// code, M, K, N, weight_in_out.
static LogicalResult lowerOp(LinearGradWeightBiasOp o, RuntimeEmitter &e) {
  int64_t k = e.lastDim(o.getInput()), n = e.lastDim(o.getDy());
  SmallVector<Value> args;
  for (Value v : {o.getInput(), o.getDy(), o.getDweight(), o.getDbias()})
    args.append({e.ptr(v), e.i32(runtimeDtypeCode(v))});
  args.append({e.i64(e.numElements(o.getInput()) / k), e.i64(k), e.i64(n),
               e.i32(o.getWeightLayout() == WeightLayout::in_out)});
  e.call("sprt_linear_grad_weight_bias_typed", args);
  return success();
}

static LogicalResult lowerOp(BiasGradOp o, RuntimeEmitter &e) {
  int64_t h = e.lastDim(o.getDy());
  callStored(e, o, "sprt_bias_grad", {o.getDy(), o.getDbias()},
             {e.i64(e.numElements(o.getDy()) / h), e.i64(h)});
  return success();
}

// With a residual: the _add kernel, which has only a typed form.
static LogicalResult lowerOp(LayerNormGradOp o, RuntimeEmitter &e) {
  SmallVector<Value> tensors{o.getDy(), o.getInput(), o.getWeight()};
  if (o.getResidual())
    tensors.push_back(o.getResidual());
  tensors.append({o.getDx(), o.getDweight(), o.getDbias()});
  callStored(e, o,
             o.getResidual() ? "sprt_layer_norm_grad_add"
                             : "sprt_layer_norm_grad",
             tensors, normSizes(e, o.getInput(), o.getEps()),
             o.getResidual() || !allTensorsF32(o));
  return success();
}

static LogicalResult lowerOp(RmsNormGradOp o, RuntimeEmitter &e) {
  SmallVector<Value> tensors{o.getDy(), o.getInput(), o.getWeight()};
  if (o.getResidual())
    tensors.push_back(o.getResidual());
  tensors.append({o.getDx(), o.getDweight()});
  callStored(e, o,
             o.getResidual() ? "sprt_rms_norm_grad_add" : "sprt_rms_norm_grad",
             tensors, normSizes(e, o.getInput(), o.getEps()),
             o.getResidual() || !allTensorsF32(o));
  return success();
}

static LogicalResult lowerOp(GeluGradOp o, RuntimeEmitter &e) {
  callMap(e, "sprt_gelu_grad", o,
          {e.ptr(o.getDy()), e.ptr(o.getInput()), e.ptr(o),
           e.i64(e.numElements(o)),
           e.i32(o.getApproximate() == GeluApproximation::tanh)});
  return success();
}

static LogicalResult lowerOp(ScaleOp o, RuntimeEmitter &e) {
  e.call("sprt_op_scale",
         {e.ptr(o.getInput()), e.ptr(o), e.i64(e.numElements(o)),
          e.f64(o.getFactor().convertToDouble())});
  return success();
}

/// The hyperparameter slot of `op`'s `what` (its learning rate, its loss
/// scale), which the runtime reads on the device (sprt_step_hyperparameter),
/// so that a step captured as a CUDA graph replays with the values of the
/// step it runs: a tfm.hyperparameter, as sp-optimizer and sp-autodiff make
/// them.
static FailureOr<int64_t> deviceSlot(Operation *op, Value value, StringRef what,
                                     RuntimeEmitter &e) {
  auto h = value.getDefiningOp<HyperparameterOp>();
  if (!h)
    return op->emitOpError()
           << "takes its " << what
           << " from a tfm.hyperparameter (the runtime reads it on the "
              "device, from the step's table); this one is not";
  return e.hyperparameterSlot(stringifyHyperparameterKind(h.getKind()));
}

static LogicalResult lowerOp(FillOp o, RuntimeEmitter &e) {
  // `times` (the loss scale): multiplied in place, read on the device.
  FailureOr<int64_t> slot = 0;
  if (Value times = o.getTimes())
    if (failed(slot = deviceSlot(o, times, "loss scale", e)))
      return failure();
  e.call("sprt_fill_f32", {e.ptr(o), e.i64(e.numElements(o)),
                           e.f64(o.getValue().convertToDouble())});
  if (o.getTimes())
    e.call("sprt_op_scale_by",
           {e.ptr(o), e.ptr(o), e.i64(e.numElements(o)), e.i32(*slot)});
  return success();
}

// bf16 / f16: dy as stored and the table's gradient in its type, each
// pointer followed by its type (ReducesRowsAsStored).
static LogicalResult lowerOp(EmbeddingGradOp o, RuntimeEmitter &e) {
  const bool typed = !o.getDy().getType().getElementType().isF32() ||
                     !o.getType().getElementType().isF32();
  SmallVector<Value> args{e.ptr(o.getIds()), e.ptr(o.getDy())};
  if (typed)
    args.push_back(e.i32(runtimeDtypeCode(o.getDy())));
  args.push_back(e.ptr(o));
  if (typed)
    args.push_back(e.i32(runtimeDtypeCode(o)));
  args.append({e.i64(e.numElements(o.getIds())), e.i64(e.dim(o, 0)),
               e.i64(e.dim(o, 1)), e.i32(e.splitAxis(o, 0))});
  e.call(typed ? "sprt_op_embedding_grad_typed" : "sprt_op_embedding_grad",
         args);
  return success();
}

static LogicalResult lowerOp(QkvConcatOp o, RuntimeEmitter &e) {
  e.call("sprt_qkv_concat",
         {e.ptr(o.getDq()), e.ptr(o.getDk()), e.ptr(o.getDv()), e.ptr(o),
          e.i64(e.numElements(o) / e.lastDim(o)), e.i64(o.getNumHeads()),
          e.i64(o.getNumKvHeads()), e.i64(o.getHeadDim()),
          e.i32(o.getPacking() == QkvPacking::heads), elemBytes(e, o)});
  return success();
}

static LogicalResult lowerOp(RepeatHeadsGradOp o, RuntimeEmitter &e) {
  e.call("sprt_repeat_heads_grad_f32",
         {e.ptr(o.getDy()), e.ptr(o), e.i64(e.numElements(o) / e.lastDim(o)),
          e.i64(o.getNumHeads()), e.i64(o.getHeadDim()), e.i64(o.getFactor())});
  return success();
}

static LogicalResult lowerOp(AttentionGradOp o, RuntimeEmitter &e) {
  Value q = o.getQ();
  Value args = attentionArgs(e, o, q, e.zigzagAxis(q, 0));
  SmallVector<Value> operands{e.ptr(o.getDout()), e.ptr(q), e.ptr(o.getK()),
                              e.ptr(o.getV()), e.optionalPtr(o.getPositions())};
  if (o.getOut()) {
    operands.push_back(e.ptr(o.getOut()));
    operands.push_back(e.ptr(o.getLse()));
  }
  operands.append({e.ptr(o.getDq()), e.ptr(o.getDk()), e.ptr(o.getDv()), args});
  callAttention(
      e, o.getOut() ? "sprt_op_attention_grad_lse" : "sprt_op_attention_grad",
      q, operands);
  return success();
}

static LogicalResult lowerOp(CrossEntropyGradOp o, RuntimeEmitter &e) {
  int64_t v = e.lastDim(o.getLogits());
  SmallVector<Value> args;
  bool typed = logitsArgs(e, o.getLogits(), args);
  args.push_back(e.ptr(o.getLabels()));
  args.push_back(e.ptr(o.getDloss()));
  args.push_back(e.optionalPtr(o.getCount()));
  args.push_back(e.ptr(o));
  if (typed)
    args.push_back(e.i32(runtimeDtypeCode(o.getResult())));
  args.push_back(e.i64(e.numElements(o.getLabels())));
  args.push_back(e.i64(v));
  args.push_back(e.i64(o.getIgnoreIndex()));
  e.call(typed ? "sprt_cross_entropy_grad_typed"
               : "sprt_cross_entropy_grad_f32",
         args);
  return success();
}

static LogicalResult lowerOp(CrossEntropyFromStatsGradOp o, RuntimeEmitter &e) {
  e.call("sprt_cross_entropy_from_stats_grad_f32",
         {e.ptr(o.getSumexp()), e.ptr(o.getLabels()), e.ptr(o.getDloss()),
          e.optionalPtr(o.getCount()), e.ptr(o.getDsumexp()),
          e.ptr(o.getDlabelLogit()), e.i64(e.numElements(o.getLabels())),
          e.i64(o.getIgnoreIndex())});
  return success();
}

static LogicalResult lowerOp(LogitsSumExpGradOp o, RuntimeEmitter &e) {
  int64_t v = e.lastDim(o.getLogits());
  e.call("sprt_logits_sumexp_grad_f32",
         {e.ptr(o.getLogits()), e.ptr(o.getMax()), e.ptr(o.getDsumexp()),
          e.ptr(o), e.i64(e.numElements(o.getLogits()) / v), e.i64(v)});
  return success();
}

static LogicalResult lowerOp(LabelLogitGradOp o, RuntimeEmitter &e) {
  int64_t v = e.lastDim(o);
  e.call(
      "sprt_op_label_logit_grad",
      {e.ptr(o.getLabels()), e.ptr(o.getDz()), e.ptr(o),
       e.i64(e.numElements(o.getLabels())), e.i64(v),
       e.i32(e.splitAxis(o, cast<RankedTensorType>(o.getType()).getRank() - 1)),
       e.i64(o.getIgnoreIndex())});
  return success();
}

/// One call for every input: the runtime sums them in one pass over the
/// list.
static LogicalResult lowerOp(SumSquaresOp o, RuntimeEmitter &e) {
  auto [inputs, sizes] = e.pointerArray(o.getInputs());
  e.call("sprt_op_sum_squares",
         {e.i32(int64_t(o.getInputs().size())), inputs, sizes, e.ptr(o)});
  return success();
}

static LogicalResult lowerOp(ConvertOp o, RuntimeEmitter &e) {
  e.call("sprt_convert",
         {e.ptr(o.getInput()), e.i32(runtimeDtypeCode(o.getInput())), e.ptr(o),
          e.i32(runtimeDtypeCode(o)), e.i64(e.numElements(o))});
  return success();
}

/// tfm.hyperparameter: its slot of the step's hyperparameter table, read
/// once where the op stands.
static LogicalResult lowerOp(HyperparameterOp o, RuntimeEmitter &e) {
  e.bindScalar(o, e.hyperparameter(stringifyHyperparameterKind(o.getKind())));
  return success();
}

static LogicalResult lowerOp(ClipScaleOp o, RuntimeEmitter &e) {
  // The loss scale after the max norm: its slot, read on the device, or
  // none (1).
  Value lossScale = o.getLossScale();
  if (!lossScale) {
    e.call("sprt_op_clip_scale",
           {e.ptr(o.getSumSquares()), e.scalar(o.getMaxNorm()), e.f64(1.0),
            e.ptr(o.getScale()), e.ptr(o.getNorm())});
    return success();
  }
  FailureOr<int64_t> slot = deviceSlot(o, lossScale, "loss scale", e);
  if (failed(slot))
    return failure();
  e.call("sprt_op_clip_scale_by",
         {e.ptr(o.getSumSquares()), e.scalar(o.getMaxNorm()), e.i32(*slot),
          e.ptr(o.getScale()), e.ptr(o.getNorm())});
  return success();
}

/// The runtime's code of the element type of parameter `index`
/// (SPRT_DTYPE_*).
static int64_t paramDtypeCode(RuntimeEmitter &e, int64_t index) {
  return runtimeDtypeCode(e.paramElementType(index));
}

/// The `k`-th mesh axis (outermost first) over which a distributed
/// optimizer slices gradient `grad`, or -1.
static int64_t zeroAxis(RuntimeEmitter &e, Value grad, size_t k) {
  SmallVector<int32_t, 2> axes = e.zeroShardAxes(grad);
  return k < axes.size() ? axes[k] : -1;
}

static LogicalResult lowerOp(SgdUpdateOp o, RuntimeEmitter &e) {
  FailureOr<int64_t> lr = deviceSlot(o, o.getLr(), "learning rate", e);
  if (failed(lr))
    return failure();
  int64_t index = e.paramIndex(o.getParam());
  Value param = e.paramPointer(index);
  if (o.getMaster()) {
    e.call("sprt_op_sgd_master",
           {e.masterPointer(index), param, e.i32(paramDtypeCode(e, index)),
            e.ptr(o.getGrad()), e.ptr(o.getScale()),
            e.i64(e.numElements(o.getGrad())), e.i32(*lr),
            e.scalar(o.getWeightDecay()), e.i32(zeroAxis(e, o.getGrad(), 0)),
            e.i32(zeroAxis(e, o.getGrad(), 1))});
    return success();
  }
  e.call("sprt_op_sgd",
         {param, e.ptr(o.getGrad()), e.ptr(o.getScale()),
          e.i64(e.numElements(o.getGrad())), e.i32(*lr),
          e.scalar(o.getWeightDecay()), e.i32(zeroAxis(e, o.getGrad(), 0)),
          e.i32(zeroAxis(e, o.getGrad(), 1))});
  return success();
}

static LogicalResult lowerOp(AdamWUpdateOp o, RuntimeEmitter &e) {
  FailureOr<int64_t> lr = deviceSlot(o, o.getLr(), "learning rate", e);
  if (failed(lr))
    return failure();
  int64_t index = e.paramIndex(o.getParam());
  SmallVector<Value> args;
  if (o.getMaster())
    args = {e.masterPointer(index), e.paramPointer(index),
            e.i32(paramDtypeCode(e, index))};
  else
    args = {e.paramPointer(index)};
  args.append({e.ptr(o.getGrad()), e.statePointer(2 * index),
               e.statePointer(2 * index + 1), e.ptr(o.getScale()),
               e.i64(e.numElements(o.getGrad())), e.i32(*lr),
               e.scalar(o.getBeta1()), e.scalar(o.getBeta2()),
               e.scalar(o.getEps()), e.scalar(o.getWeightDecay()),
               e.i32(zeroAxis(e, o.getGrad(), 0)),
               e.i32(zeroAxis(e, o.getGrad(), 1))});
  e.call(o.getMaster() ? "sprt_op_adamw_master" : "sprt_op_adamw", args);
  return success();
}

/// Attaches, to each op, its lowerOp overload above.
template <typename... OpTs> static void attachTfmLowerings(MLIRContext *ctx) {
  (OpTs::template attachInterface<FunctionLowering<OpTs, lowerOp>>(*ctx), ...);
}

void seqpar::registerTfmRuntimeLoweringModels(DialectRegistry &registry) {
  // Every tfm op but tfm.param, which the pass reads as the parameter table.
  registry.addExtension(+[](MLIRContext *ctx, TfmDialect *) {
    SiluOp::attachInterface<UnaryKernelLowering<SiluOp, kSilu>>(*ctx);
    SiluGradOp::attachInterface<UnaryGradKernelLowering<SiluGradOp, kSiluGrad>>(
        *ctx);
    ReluOp::attachInterface<UnaryKernelLowering<ReluOp, kRelu>>(*ctx);
    ReluGradOp::attachInterface<UnaryGradKernelLowering<ReluGradOp, kReluGrad>>(
        *ctx);
    MulOp::attachInterface<BinaryKernelLowering<MulOp, kMul>>(*ctx);
    AddOp::attachInterface<BinaryKernelLowering<AddOp, kAdd>>(*ctx);
    // Forward ops.
    attachTfmLowerings<
        GetParamOp, MicroBatchOp, PositionIdsOp, EmbeddingOp, LayerNormOp,
        RmsNormOp, DropoutOp, LinearOp, QkvSplitOp, AttentionOp, GeluOp,
        BiasAddOp, RepeatHeadsOp, LogitsMaxOp, LogitsSumExpOp, LabelLogitOp,
        CrossEntropyFromStatsOp, LabelCountOp, CrossEntropyOp, ConvertOp>(ctx);
    // Gradient ops.
    attachTfmLowerings<
        LinearGradInputOp, LinearGradWeightOp, BiasGradOp, LayerNormGradOp,
        RmsNormGradOp, GeluGradOp, ScaleOp, FillOp, EmbeddingGradOp,
        QkvConcatOp, RepeatHeadsGradOp, AttentionGradOp, CrossEntropyGradOp,
        CrossEntropyFromStatsGradOp, LogitsSumExpGradOp, LabelLogitGradOp>(ctx);
    // Fused ops (tfm-fuse-elementwise, tfm-fuse-epilogues).
    attachTfmLowerings<AddLayerNormOp, AddRmsNormOp, DropoutAddOp, LinearGeluOp,
                       LinearGeluGradOp, LinearGradWeightBiasOp, SwigluOp,
                       SwigluGradOp>(ctx);
    // Optimizer ops.
    attachTfmLowerings<HyperparameterOp, SumSquaresOp, ClipScaleOp, SgdUpdateOp,
                       AdamWUpdateOp>(ctx);
  });
}

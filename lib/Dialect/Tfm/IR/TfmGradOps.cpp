//===- TfmGradOps.cpp - verifiers of the backward ops ---------------------===//

#include "ShapeFormat.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar::tfm;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `got` must have shape `want` and element type `et`.
static LogicalResult expectShape(Operation *op, StringRef what, Value got,
                                 ArrayRef<int64_t> want, Type et) {
  RankedTensorType t = typeOf(got);
  if (t.getShape() != want || t.getElementType() != et)
    return op->emitOpError() << what << " must have shape " << shapeStr(want)
                             << " and element type " << et << ", got " << t;
  return success();
}

static SmallVector<int64_t> withLast(ArrayRef<int64_t> shape, int64_t last) {
  SmallVector<int64_t> s(shape);
  s.back() = last;
  return s;
}

/// An input gradient's checks of dy and the weight (tfm.linear_grad_input,
/// tfm.linear_gelu_grad); the weight's input features when they hold.
static FailureOr<int64_t> gradInputFeatures(Operation *op, RankedTensorType dy,
                                            RankedTensorType w,
                                            seqpar::WeightLayout layout) {
  if (w.getRank() != 2 || dy.getRank() < 1)
    return op->emitOpError() << "the weight must have rank 2 and dy rank >= 1";
  bool outIn = layout == seqpar::WeightLayout::out_in;
  int64_t in = w.getDimSize(outIn ? 1 : 0), out = w.getDimSize(outIn ? 0 : 1);
  if (dy.getShape().back() != out)
    return op->emitOpError()
           << "dy's last dimension must be the weight's " << out
           << " output features, got " << shapeStr(dy.getShape());
  return in;
}

LogicalResult LinearGradInputOp::verify() {
  RankedTensorType dy = getDy().getType();
  FailureOr<int64_t> in =
      gradInputFeatures(*this, dy, getWeight().getType(), getWeightLayout());
  if (failed(in))
    return failure();
  return expectShape(*this, "dx", getDx(), withLast(dy.getShape(), *in),
                     getDx().getType().getElementType());
}

LogicalResult LinearGeluGradOp::verify() {
  RankedTensorType dy = getDy().getType();
  FailureOr<int64_t> in =
      gradInputFeatures(*this, dy, getWeight().getType(), getWeightLayout());
  if (failed(in))
    return failure();
  RankedTensorType pre = getPre().getType();
  if (failed(expectShape(*this, "pre", getPre(), withLast(dy.getShape(), *in),
                         pre.getElementType())))
    return failure();
  if (getDx().getType() != pre)
    return emitOpError() << "dx must have pre's type " << pre << ", got "
                         << getDx().getType();
  if (Value db = getDbias()) {
    Type et = cast<RankedTensorType>(db.getType()).getElementType();
    if (et != pre.getElementType() && !et.isF32())
      return emitOpError() << "dbias must have dx's element type ("
                           << pre.getElementType() << ") or f32, not " << et;
    return expectShape(*this, "dbias", db, {*in}, et);
  }
  return success();
}

/// A weight gradient's checks (tfm.linear_grad_weight,
/// tfm.linear_grad_weight_bias).
static LogicalResult verifyGradWeight(Operation *op, Value input, Value dy,
                                      Value dweight,
                                      seqpar::WeightLayout layout) {
  auto x = cast<RankedTensorType>(input.getType());
  auto dyt = cast<RankedTensorType>(dy.getType());
  if (x.getRank() < 1 || x.getShape().drop_back() != dyt.getShape().drop_back())
    return op->emitOpError() << "input " << shapeStr(x.getShape()) << " and dy "
                             << shapeStr(dyt.getShape())
                             << " must have the same leading dimensions";
  int64_t in = x.getShape().back(), out = dyt.getShape().back();
  SmallVector<int64_t> want = layout == seqpar::WeightLayout::out_in
                                  ? SmallVector<int64_t>{out, in}
                                  : SmallVector<int64_t>{in, out};
  return expectShape(
      op, "dweight", dweight, want,
      cast<RankedTensorType>(dweight.getType()).getElementType());
}

/// A bias gradient's checks of dy and dbias (tfm.bias_grad,
/// tfm.linear_grad_weight_bias).
static LogicalResult verifyBiasGrad(Operation *op, Value dy, Value dbias) {
  auto dyt = cast<RankedTensorType>(dy.getType());
  if (dyt.getRank() < 1)
    return op->emitOpError() << "dy must have rank >= 1";
  Type et = cast<RankedTensorType>(dbias.getType()).getElementType();
  if (et != dyt.getElementType() && !et.isF32())
    return op->emitOpError() << "dbias must have dy's element type ("
                             << dyt.getElementType() << ") or f32, not " << et;
  return expectShape(op, "dbias", dbias, {dyt.getShape().back()}, et);
}

LogicalResult LinearGradWeightOp::verify() {
  return verifyGradWeight(*this, getInput(), getDy(), getDweight(),
                          getWeightLayout());
}

LogicalResult BiasGradOp::verify() {
  return verifyBiasGrad(*this, getDy(), getDbias());
}

LogicalResult LinearGradWeightBiasOp::verify() {
  if (failed(verifyGradWeight(*this, getInput(), getDy(), getDweight(),
                              getWeightLayout())))
    return failure();
  return verifyBiasGrad(*this, getDy(), getDbias());
}

/// Norm backward: dy like x, dx like x, weight-shaped gradients, the
/// residual (if any) like dx.
static LogicalResult verifyNormGrad(Operation *op, APFloat eps, Value dy,
                                    Value x, Value weight, Value residual,
                                    Value dx, ValueRange weightGrads) {
  if (!(eps.convertToDouble() > 0.0))
    return op->emitOpError() << "eps must be > 0";
  RankedTensorType tx = typeOf(x);
  if (typeOf(dy).getShape() != tx.getShape() || tx.getRank() < 1 ||
      typeOf(dy).getElementType() != tx.getElementType())
    return op->emitOpError()
           << "dy and the input must have the same shape and element type";
  if (failed(expectShape(op, "dx", dx, tx.getShape(), tx.getElementType())))
    return failure();
  if (residual && typeOf(residual) != typeOf(dx))
    return op->emitOpError() << "the residual must have dx's type ("
                             << dx.getType() << "), not " << residual.getType();
  SmallVector<int64_t> h{tx.getShape().back()};
  if (failed(expectShape(op, "the weight", weight, h, tx.getElementType())))
    return failure();
  // A weight gradient may be an f32 partial sum of bf16 / f16 weights'.
  for (Value g : weightGrads) {
    Type e = typeOf(g).getElementType();
    Type want = e.isF32() ? e : tx.getElementType();
    if (failed(expectShape(op, "a weight gradient", g, h, want)))
      return failure();
  }
  return success();
}

LogicalResult LayerNormGradOp::verify() {
  return verifyNormGrad(*this, getEps(), getDy(), getInput(), getWeight(),
                        getResidual(), getDx(), {getDweight(), getDbias()});
}

LogicalResult RmsNormGradOp::verify() {
  return verifyNormGrad(*this, getEps(), getDy(), getInput(), getWeight(),
                        getResidual(), getDx(), {getDweight()});
}

LogicalResult EmbeddingGradOp::verify() {
  RankedTensorType ids = getIds().getType(), dy = getDy().getType(),
                   dt = getDtable().getType();
  if (dy.getRank() != ids.getRank() + 1 ||
      dy.getShape().drop_back() != ids.getShape())
    return emitOpError() << "dy must have the ids' shape followed by the "
                            "hidden size, got "
                         << shapeStr(dy.getShape());
  if (dt.getRank() != 2 || dt.getDimSize(1) != dy.getShape().back())
    return emitOpError() << "the table gradient must be [vocab, "
                         << dy.getShape().back() << "], got " << dt;
  if (dt.getElementType() != dy.getElementType() &&
      !dt.getElementType().isF32())
    return emitOpError() << "the table gradient must have dy's element type ("
                         << dy.getElementType() << ") or f32, not "
                         << dt.getElementType();
  return success();
}

LogicalResult QkvConcatOp::verify() {
  int64_t h = getNumHeads(), kv = getNumKvHeads(), d = getHeadDim();
  if (h < 1 || kv < 1 || d < 1 || h % kv != 0)
    return emitOpError() << "heads must be a positive multiple of kv_heads "
                            "and head_dim positive";
  // kv_heads divides heads, so heads + 2 * kv_heads <= 3 * heads.
  if (!llvm::checkedMul<int64_t>(h, 3))
    return emitOpError() << "3 * heads = 3 * " << h << " overflows int64";
  if (!llvm::checkedMul<int64_t>(h + 2 * kv, d))
    return emitOpError() << "(heads + 2 * kv_heads) * head_dim = " << h + 2 * kv
                         << " * " << d << " overflows int64";
  RankedTensorType q = getDq().getType();
  Type et = q.getElementType();
  if (failed(expectShape(*this, "dq", getDq(), withLast(q.getShape(), h * d),
                         et)) ||
      failed(expectShape(*this, "dk", getDk(), withLast(q.getShape(), kv * d),
                         et)) ||
      failed(expectShape(*this, "dv", getDv(), withLast(q.getShape(), kv * d),
                         et)))
    return failure();
  return expectShape(*this, "the result", getResult(),
                     withLast(q.getShape(), (h + 2 * kv) * d), et);
}

LogicalResult RepeatHeadsGradOp::verify() {
  int64_t h = getNumHeads(), d = getHeadDim(), f = getFactor();
  if (h < 1 || d < 1 || f < 1)
    return emitOpError() << "heads, head_dim and factor must be >= 1";
  if (!llvm::checkedMul<int64_t>(h, f) || !llvm::checkedMul<int64_t>(h * f, d))
    return emitOpError() << "heads * factor * head_dim = " << h << " * " << f
                         << " * " << d << " overflows int64";
  RankedTensorType dy = getDy().getType();
  if (dy.getRank() < 1 || dy.getShape().back() != h * f * d)
    return emitOpError() << "dy's last dimension must be heads * factor * "
                            "head_dim = "
                         << h * f * d;
  return expectShape(*this, "dx", getDx(), withLast(dy.getShape(), h * d),
                     dy.getElementType());
}

LogicalResult AttentionGradOp::verify() {
  if (getDout().getType() != getQ().getType())
    return emitOpError() << "dout must have q's type";
  if (getDocumentCausal() && (!getCausal() || !getPositions()))
    return emitOpError() << "document_causal needs causal and positions (the "
                            "documents' position ids)";
  // dk and dv may be partial where k and v are whole: the contributions of
  // this rank's queries (context parallelism).
  auto sameShape = [](Value a, Value b) {
    auto ta = cast<RankedTensorType>(a.getType()),
         tb = cast<RankedTensorType>(b.getType());
    return ta.getShape() == tb.getShape() &&
           ta.getElementType() == tb.getElementType();
  };
  if (getDq().getType() != getQ().getType() || !sameShape(getDk(), getK()) ||
      !sameShape(getDv(), getV()))
    return emitOpError() << "dq must have q's type, dk and dv the shapes and "
                            "element types of k and v";
  if (static_cast<bool>(getOut()) != static_cast<bool>(getLse()))
    return emitOpError() << "saved needs both the forward's result and its lse";
  if (Value out = getOut()) {
    if (out.getType() != getQ().getType())
      return emitOpError() << "the saved result must have q's type";
    RankedTensorType lse = attentionStatsType(getQ(), getNumHeads());
    if (getLse().getType() != lse)
      return emitOpError() << "the saved lse must be " << lse
                           << " ([s, b, heads] f32 with q's encoding), got "
                           << getLse().getType();
  }
  return success();
}

LogicalResult CrossEntropyGradOp::verify() {
  RankedTensorType logits = getLogits().getType();
  if (logits.getRank() < 1 ||
      getLabels().getType().getShape() != logits.getShape().drop_back())
    return emitOpError() << "labels must have the logits' shape without the "
                            "vocabulary";
  if (getDlogits().getType() != logits)
    return emitOpError() << "the result must have the logits' type";
  return success();
}

LogicalResult CrossEntropyFromStatsGradOp::verify() {
  ArrayRef<int64_t> shape = getLabels().getType().getShape();
  for (Value v : {getSumexp(), getDsumexp(), getDlabelLogit()})
    if (typeOf(v).getShape() != shape)
      return emitOpError() << "sumexp and the gradients must have the labels' "
                              "shape "
                           << shapeStr(shape);
  return success();
}

LogicalResult LogitsSumExpGradOp::verify() {
  RankedTensorType logits = getLogits().getType();
  if (logits.getRank() < 1)
    return emitOpError() << "logits must have rank >= 1";
  ArrayRef<int64_t> tokens = logits.getShape().drop_back();
  if (getMax().getType().getShape() != tokens ||
      getDsumexp().getType().getShape() != tokens)
    return emitOpError() << "max and dsumexp must have shape "
                         << shapeStr(tokens);
  if (getDlogits().getType() != logits)
    return emitOpError() << "the result must have the logits' type";
  return success();
}

LogicalResult LabelLogitGradOp::verify() {
  ArrayRef<int64_t> tokens = getLabels().getType().getShape();
  RankedTensorType d = getDlogits().getType();
  if (getDz().getType().getShape() != tokens ||
      d.getRank() != int64_t(tokens.size()) + 1 ||
      d.getShape().drop_back() != tokens)
    return emitOpError() << "dz must have the labels' shape and the result "
                            "that shape followed by the vocabulary";
  return success();
}

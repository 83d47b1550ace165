//===- TfmOps.cpp - tfm operation verifiers -------------------------------===//

#include "ShapeFormat.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar::tfm;

static RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Shapes and element types must agree; encodings (layouts) are compared by
/// the dist verifiers, not here.
static bool sameShapeAndElement(RankedTensorType a, RankedTensorType b) {
  return a.getShape() == b.getShape() &&
         a.getElementType() == b.getElementType();
}

static LogicalResult verifyNormWeight(Operation *op, RankedTensorType input,
                                      Value param, StringRef what) {
  if (!param)
    return success();
  RankedTensorType t = tensorOf(param);
  if (t.getRank() != 1 || input.getRank() < 1 ||
      t.getDimSize(0) != input.getShape().back())
    return op->emitOpError()
           << what << " must have shape ["
           << (input.getRank() ? input.getShape().back() : 0)
           << "] (the input's last dimension), got " << shapeStr(t.getShape());
  if (t.getElementType() != input.getElementType())
    return op->emitOpError()
           << what << " element type " << t.getElementType()
           << " differs from the input's " << input.getElementType();
  return success();
}

static LogicalResult verifyEps(Operation *op, APFloat eps) {
  if (!(eps.convertToDouble() > 0.0))
    return op->emitOpError()
           << "eps must be > 0, got " << eps.convertToDouble();
  return success();
}

static LogicalResult verifyRate(Operation *op, StringRef name, double rate) {
  if (!(rate >= 0.0 && rate < 1.0))
    return op->emitOpError() << name << " must be in [0, 1), got " << rate;
  return success();
}

/// The product of `factors` (attributes such as heads and head_dim), or an
/// error naming `what` when it overflows int64.
static FailureOr<int64_t> product(Operation *op, ArrayRef<int64_t> factors,
                                  StringRef what) {
  int64_t p = 1;
  for (int64_t f : factors) {
    std::optional<int64_t> next = llvm::checkedMul<int64_t>(p, f);
    if (!next) {
      auto diag = op->emitOpError() << what << " = ";
      llvm::interleave(factors, diag, " * ");
      return diag << " overflows int64";
    }
    p = *next;
  }
  return p;
}

static LogicalResult verifyHeads(Operation *op, int64_t heads, int64_t kvHeads,
                                 int64_t headDim) {
  if (heads < 1 || kvHeads < 1 || headDim < 1)
    return op->emitOpError()
           << "heads, kv_heads and head_dim must be >= 1, got " << heads << ", "
           << kvHeads << ", " << headDim;
  if (heads % kvHeads != 0)
    return op->emitOpError()
           << "heads (" << heads << ") must be a multiple of kv_heads ("
           << kvHeads << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// ParamOp / GetParamOp
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  for (int64_t d : type.getShape())
    if (ShapedType::isDynamic(d) || d < 1)
      return emitOpError()
             << "parameter shape must be static and positive, got " << type;
  if (failed(seqpar::verifyTensorSize(*this, type, "type")))
    return failure();
  bool isNormal = getInit() == InitKind::normal;
  if (isNormal && !getInitStd())
    return emitOpError() << "normal init needs a standard deviation";
  if (isNormal && !(getInitStd()->convertToDouble() > 0.0))
    return emitOpError() << "normal init standard deviation must be > 0, got "
                         << getInitStd()->convertToDouble();
  if (!isNormal && getInitStd())
    return emitOpError() << stringifyInitKind(getInit())
                         << " init takes no standard deviation";
  if (!getTieGroup())
    return success();
  if (getTieGroup()->empty())
    return emitOpError() << "tie group name must not be empty";
  // Compare with the first earlier member of the group: every member is
  // checked against its predecessor, so the whole group agrees.
  for (Operation &other : (*this)->getBlock()->getOperations()) {
    if (&other == getOperation())
      break;
    auto prev = dyn_cast<ParamOp>(other);
    if (!prev || prev.getTieGroup() != getTieGroup())
      continue;
    if (prev.getType() != getType() || prev.getInit() != getInit() ||
        prev.getInitStd() != getInitStd())
      return emitOpError() << "tie group '" << *getTieGroup()
                           << "' mixes parameters of different type or init: "
                           << "@" << prev.getSymName() << " is "
                           << prev.getType();
  }
  return success();
}

LogicalResult GetParamOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto param =
      symbolTable.lookupNearestSymbolFrom<ParamOp>(*this, getNameAttr());
  if (!param)
    return emitOpError() << "'" << getName() << "' does not name a tfm.param";
  auto global = cast<RankedTensorType>(param.getType());
  RankedTensorType local = getResult().getType();
  if (global == local)
    return success();
  auto mismatch = [&]() {
    return emitOpError() << "result type " << local
                         << " is not a shard of the type of @" << getName()
                         << ", " << global;
  };
  if (global.getElementType() != local.getElementType() ||
      global.getRank() != local.getRank() ||
      global.getEncoding() != local.getEncoding() || !global.getEncoding())
    return mismatch();
  for (auto [g, l] : llvm::zip(global.getShape(), local.getShape()))
    if (l < 1 || g % l != 0)
      return mismatch();
  return success();
}

//===----------------------------------------------------------------------===//
// PositionIdsOp / EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult PositionIdsOp::verify() {
  if (getResult().getType().getRank() != 2)
    return emitOpError() << "result must be a rank-2 [s, b] tensor, got "
                         << getResult().getType();
  return success();
}

LogicalResult MicroBatchOp::verify() {
  RankedTensorType in = getInput().getType(), res = getResult().getType();
  if (in.getRank() < 2)
    return emitOpError() << "input must have rank >= 2 [micro-batches, ...], "
                            "got "
                         << shapeStr(in.getShape());
  int64_t index = getIndexAttr().getInt();
  if (index < 0 || index >= in.getDimSize(0))
    return emitOpError() << "index " << index << " is outside the "
                         << in.getDimSize(0) << " micro-batches of the input";
  if (res.getShape() != in.getShape().drop_front() ||
      res.getElementType() != in.getElementType())
    return emitOpError() << "result must be "
                         << shapeStr(in.getShape().drop_front()) << " "
                         << in.getElementType()
                         << " (the input without dimension 0), got "
                         << shapeStr(res.getShape()) << " "
                         << res.getElementType();
  return success();
}

LogicalResult MicroBatchLoopOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input [M, s, b]";
  int64_t m = -1;
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body must have one argument per input ("
                         << getInputs().size() << "), got "
                         << body.getNumArguments();
  for (auto [i, in, arg] : llvm::enumerate(getInputs(), body.getArguments())) {
    auto type = cast<RankedTensorType>(in.getType());
    if (type.getRank() < 2)
      return emitOpError() << "input #" << i
                           << " must have rank >= 2 [micro-batches, ...], got "
                           << shapeStr(type.getShape());
    if (m < 0)
      m = type.getDimSize(0);
    if (type.getDimSize(0) != m || m < 1)
      return emitOpError() << "input #" << i << " has " << type.getDimSize(0)
                           << " micro-batches (dimension 0), not " << m
                           << " like input #0 (and at least 1)";
    // The layouts (dist.layout encodings) are sp-verify's to check.
    auto want = RankedTensorType::get(type.getShape().drop_front(),
                                      type.getElementType());
    auto got = cast<RankedTensorType>(arg.getType());
    if (got.getShape() != want.getShape() ||
        got.getElementType() != want.getElementType())
      return emitOpError() << "body argument #" << i << " must be " << want
                           << " (micro-batch i of input #" << i << "), got "
                           << arg.getType();
  }
  if (std::optional<uint64_t> n = getCount();
      n && (int64_t(*n) < 1 || int64_t(*n) > m))
    return emitOpError() << "count " << int64_t(*n) << " is outside [1, " << m
                         << "] (the micro-batches of its inputs)";
  if (std::optional<uint64_t> w = getLag()) {
    if (int64_t(*w) < 0 || int64_t(*w) > m)
      return emitOpError() << "lag " << int64_t(*w) << " is outside [0, " << m
                           << "] (the micro-batches of its inputs)";
    if (getCount())
      return emitOpError() << "has both a lag and a count: a pipeline "
                              "stage's loop runs every micro-batch";
    StringRef mark = TfmDialect::BackwardBeginsAttrHelper::getNameStr();
    int64_t marked =
        llvm::count_if(body.without_terminator(),
                       [&](Operation &op) { return op.hasAttr(mark); });
    if (marked != 1)
      return emitOpError() << "has a lag but " << marked
                           << " ops of its body marked " << mark
                           << "; exactly one begins the backward part";
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().getTypes()
                         << " but its results are " << getResultTypes();
  return success();
}

Operation *MicroBatchLoopOp::getBackwardBegin() {
  if (!getLag())
    return nullptr;
  for (Operation &op : getBody().front())
    if (op.hasAttr(TfmDialect::BackwardBeginsAttrHelper::getNameStr()))
      return &op;
  return nullptr;
}

bool MicroBatchLoopOp::inBackwardPart(Operation *op) {
  return inBackwardPart(op, getBackwardBegin());
}

bool MicroBatchLoopOp::inBackwardPart(Operation *op, Operation *begin) {
  Operation *at =
      begin ? getBody().front().findAncestorOpInBlock(*op) : nullptr;
  return at && !at->isBeforeInBlock(begin);
}

int64_t MicroBatchLoopOp::stashSlots(Value v) {
  int64_t w = getLagOrZero();
  // The body's arguments are read in place at the micro-batch of the part
  // reading them; only computed values are stashed.
  Operation *def = v.getDefiningOp();
  if (w == 0 || !def || !getBody().front().findAncestorOpInBlock(*def))
    return 1;
  Operation *begin = getBackwardBegin();
  if (inBackwardPart(def, begin))
    return 1;
  for (Operation *user : v.getUsers())
    if (inBackwardPart(user, begin))
      return std::min(w + 1, getStepMicroBatches());
  return 1;
}

LogicalResult EmbeddingOp::verify() {
  RankedTensorType ids = getIds().getType(), table = getTable().getType(),
                   res = getResult().getType();
  if (table.getRank() != 2)
    return emitOpError() << "table must have rank 2 [vocab, hidden], got "
                         << shapeStr(table.getShape());
  SmallVector<int64_t> expected(ids.getShape());
  expected.push_back(table.getDimSize(1));
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape must be " << shapeStr(expected)
                         << " (ids shape + hidden), got "
                         << shapeStr(res.getShape());
  if (res.getElementType() != table.getElementType())
    return emitOpError() << "result element type " << res.getElementType()
                         << " differs from the table's "
                         << table.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Norms and dropout
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  RankedTensorType in = getInput().getType();
  if (failed(verifyEps(*this, getEps())) ||
      failed(verifyNormWeight(*this, in, getWeight(), "weight")) ||
      failed(verifyNormWeight(*this, in, getBias(), "bias")))
    return failure();
  if (!sameShapeAndElement(in, getResult().getType()))
    return emitOpError() << "result type " << getResult().getType()
                         << " differs from the input type " << in;
  return success();
}

LogicalResult RmsNormOp::verify() {
  RankedTensorType in = getInput().getType();
  if (failed(verifyEps(*this, getEps())) ||
      failed(verifyNormWeight(*this, in, getWeight(), "weight")))
    return failure();
  if (!sameShapeAndElement(in, getResult().getType()))
    return emitOpError() << "result type " << getResult().getType()
                         << " differs from the input type " << in;
  return success();
}

/// A fused residual sum's dropout: a rate and a stream, or neither; the
/// rate and rank tfm.dropout_add takes.
static LogicalResult verifySumDropout(Operation *op,
                                      std::optional<APFloat> rate,
                                      std::optional<uint64_t> stream,
                                      RankedTensorType t) {
  if (rate.has_value() != stream.has_value())
    return op->emitOpError() << "needs both `dropout` and `stream`, or neither";
  if (!rate)
    return success();
  if (t.getRank() > 3)
    return op->emitOpError() << "has rank " << t.getRank()
                             << "; the runtime's dropout takes rank <= 3";
  return verifyRate(op, "dropout", rate->convertToDouble());
}

LogicalResult AddLayerNormOp::verify() {
  RankedTensorType in = getSum().getType();
  if (failed(verifyEps(*this, getEps())) ||
      failed(verifyNormWeight(*this, in, getWeight(), "weight")) ||
      failed(verifyNormWeight(*this, in, getBias(), "bias")))
    return failure();
  return verifySumDropout(*this, getDropout(), getStream(), in);
}

LogicalResult AddRmsNormOp::verify() {
  RankedTensorType in = getSum().getType();
  if (failed(verifyEps(*this, getEps())) ||
      failed(verifyNormWeight(*this, in, getWeight(), "weight")))
    return failure();
  return verifySumDropout(*this, getDropout(), getStream(), in);
}

LogicalResult DropoutOp::verify() {
  return verifyRate(*this, "rate", getRate().convertToDouble());
}

LogicalResult DropoutAddOp::verify() {
  if (getType().getRank() > 3)
    return emitOpError() << "has rank " << getType().getRank()
                         << "; the runtime's dropout takes rank <= 3";
  return verifyRate(*this, "rate", getRate().convertToDouble());
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

/// The in and out features of a weight of layout `layout`.
static std::pair<int64_t, int64_t> weightFeatures(RankedTensorType w,
                                                  seqpar::WeightLayout layout) {
  bool outIn = layout == seqpar::WeightLayout::out_in;
  return {w.getDimSize(outIn ? 1 : 0), w.getDimSize(outIn ? 0 : 1)};
}

int64_t LinearOp::getInFeatures() {
  return weightFeatures(getWeight().getType(), getWeightLayout()).first;
}

int64_t LinearOp::getOutFeatures() {
  return weightFeatures(getWeight().getType(), getWeightLayout()).second;
}

/// tfm.linear's constraints, on `op`'s input, weight, optional bias and
/// result `res` (tfm.linear_gelu's `pre`).
static LogicalResult verifyLinear(Operation *op, Value input, Value weight,
                                  Value bias, seqpar::WeightLayout layout,
                                  RankedTensorType res) {
  auto in = cast<RankedTensorType>(input.getType());
  auto w = cast<RankedTensorType>(weight.getType());
  if (in.getRank() < 1)
    return op->emitOpError() << "input must have rank >= 1";
  if (w.getRank() != 2)
    return op->emitOpError()
           << "weight must have rank 2, got " << shapeStr(w.getShape());
  auto [inF, outF] = weightFeatures(w, layout);
  if (inF != in.getShape().back())
    return op->emitOpError()
           << "weight " << shapeStr(w.getShape()) << " ("
           << seqpar::stringifyWeightLayout(layout) << ") has " << inF
           << " input features but the input's last dimension is "
           << in.getShape().back();
  if (bias) {
    auto b = cast<RankedTensorType>(bias.getType());
    if (b.getRank() != 1 || b.getDimSize(0) != outF)
      return op->emitOpError() << "bias must have shape [" << outF << "], got "
                               << shapeStr(b.getShape());
  }
  SmallVector<int64_t> expected(in.getShape());
  expected.back() = outF;
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError() << "result shape must be " << shapeStr(expected)
                             << ", got " << shapeStr(res.getShape());
  return success();
}

LogicalResult LinearOp::verify() {
  return verifyLinear(*this, getInput(), getWeight(), getBias(),
                      getWeightLayout(), getResult().getType());
}

LogicalResult LinearGeluOp::verify() {
  if (getResult().getType() != getPre().getType())
    return emitOpError() << "result type " << getResult().getType()
                         << " must equal pre's " << getPre().getType();
  return verifyLinear(*this, getInput(), getWeight(), getBias(),
                      getWeightLayout(), getPre().getType());
}

//===----------------------------------------------------------------------===//
// QkvSplitOp / AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult QkvSplitOp::verify() {
  int64_t h = getNumHeads(), kv = getNumKvHeads(), d = getHeadDim();
  if (failed(verifyHeads(*this, h, kv, d)))
    return failure();
  if (getPacking() == QkvPacking::heads && h != kv)
    return emitOpError() << "'heads' packing needs heads == kv_heads, got " << h
                         << " and " << kv;
  RankedTensorType in = getInput().getType();
  // kv_heads divides heads, so heads + 2 * kv_heads <= 3 * heads.
  if (failed(product(*this, {3, h}, "3 * heads")) ||
      failed(
          product(*this, {h + 2 * kv, d}, "(heads + 2 * kv_heads) * head_dim")))
    return failure();
  if (in.getRank() < 1 || in.getShape().back() != (h + 2 * kv) * d)
    return emitOpError() << "input's last dimension must be (heads + 2 * "
                            "kv_heads) * head_dim = "
                         << (h + 2 * kv) * d << ", got "
                         << shapeStr(in.getShape());
  int64_t widths[] = {h * d, kv * d, kv * d};
  for (auto [i, r] : llvm::enumerate(getResults())) {
    SmallVector<int64_t> expected(in.getShape());
    expected.back() = widths[i];
    auto t = cast<RankedTensorType>(r.getType());
    if (t.getShape() != ArrayRef<int64_t>(expected) ||
        t.getElementType() != in.getElementType())
      return emitOpError() << "result " << i << " must have shape "
                           << shapeStr(expected) << " and element type "
                           << in.getElementType() << ", got " << t;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  int64_t h = getNumHeads(), kv = getNumKvHeads(), d = getHeadDim();
  if (failed(verifyHeads(*this, h, kv, d)))
    return failure();
  if (getDocumentCausal() && (!getCausal() || !getPositions()))
    return emitOpError() << "document_causal needs causal and positions (the "
                            "documents' position ids)";
  RankedTensorType q = getQ().getType();
  if (q.getRank() != 3)
    return emitOpError() << "q must have rank 3 [s, b, heads * head_dim], got "
                         << shapeStr(q.getShape());
  // kv_heads divides heads: heads * head_dim bounds every width below, and
  // the [b, heads, s, s] scores are what the memory report counts.
  // The keys' sequence: q's, or (context parallelism: q holds this rank's
  // part of the sequence, k and v the whole of it) a multiple of it.
  RankedTensorType kType = getK().getType();
  int64_t sq = q.getDimSize(0);
  int64_t sk = kType.getRank() == 3 ? kType.getDimSize(0) : sq;
  bool distributed = q.getEncoding() || kType.getEncoding();
  if (sk != sq && (!distributed || sq == 0 || sk % sq != 0))
    return emitOpError()
           << "k's sequence (" << sk << ") must be q's (" << sq << ")"
           << (distributed ? " or a multiple of it (the whole sequence of "
                             "context-parallel queries)"
                           : "");
  if (failed(product(*this, {h, d}, "heads * head_dim")) ||
      failed(product(*this, {q.getDimSize(1), h, sq, sk},
                     "the attention scores [b, heads, s, s]")))
    return failure();
  auto check = [&](StringRef name, RankedTensorType t,
                   int64_t width) -> LogicalResult {
    int64_t s = name == "k" || name == "v" ? sk : sq;
    SmallVector<int64_t> expected{s, q.getDimSize(1), width};
    if (t.getShape() != ArrayRef<int64_t>(expected))
      return emitOpError() << name << " must have shape " << shapeStr(expected)
                           << ", got " << shapeStr(t.getShape());
    if (t.getElementType() != q.getElementType())
      return emitOpError() << name << " element type " << t.getElementType()
                           << " differs from q's " << q.getElementType();
    return success();
  };
  if (failed(check("q", q, h * d)) ||
      failed(check("k", getK().getType(), kv * d)) ||
      failed(check("v", getV().getType(), kv * d)) ||
      failed(check("result", getResult().getType(), h * d)))
    return failure();
  if (getPositions()) {
    // The keys' positions (the queries' are among them).
    RankedTensorType p = getPositions().getType();
    SmallVector<int64_t> expected{sk, q.getDimSize(1)};
    if (p.getShape() != ArrayRef<int64_t>(expected))
      return emitOpError() << "positions must have shape " << shapeStr(expected)
                           << ", got " << shapeStr(p.getShape());
  }
  int64_t rd = getRotaryDim();
  if (rd < 0 || rd > d || rd % 2 != 0)
    return emitOpError() << "rotary_dim must be even and in [0, " << d
                         << "], got " << rd;
  if (rd > 0 && !(getRotaryTheta().convertToDouble() > 0.0))
    return emitOpError() << "rotary_theta must be > 0, got "
                         << getRotaryTheta().convertToDouble();
  // I64Attr getters return uint64_t; compare the signed value.
  int64_t stream = getDropoutStreamAttr().getInt();
  if (stream < 0)
    return emitOpError() << "dropout_stream must be >= 0, got " << stream;
  if (Value lse = getLse())
    if (lse.getType() != attentionStatsType(getQ(), h))
      return emitOpError() << "lse must be " << attentionStatsType(getQ(), h)
                           << " ([s, b, heads] f32 with q's encoding), got "
                           << lse.getType();
  return verifyRate(*this, "dropout_rate", getDropoutRate().convertToDouble());
}

RankedTensorType seqpar::tfm::attentionStatsType(Value q, int64_t heads) {
  auto type = cast<RankedTensorType>(q.getType());
  return RankedTensorType::get({type.getDimSize(0), type.getDimSize(1), heads},
                               Float32Type::get(q.getContext()),
                               type.getEncoding());
}

//===----------------------------------------------------------------------===//
// BiasAddOp / RepeatHeadsOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  RankedTensorType in = getInput().getType(), res = getResult().getType();
  if (in.getShape() != res.getShape() || in.getEncoding() != res.getEncoding())
    return emitOpError() << "changes only the element type: the result must "
                            "have the operand's shape and layout, got "
                         << in << " -> " << res;
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  // Only the identity folds: f32 -> bf16 -> f32 rounds, it is not a no-op.
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

LogicalResult BiasAddOp::verify() {
  return verifyNormWeight(*this, getInput().getType(), getBias(), "bias");
}

LogicalResult RepeatHeadsOp::verify() {
  int64_t h = getNumHeads(), d = getHeadDim(), f = getFactor();
  if (h < 1 || d < 1 || f < 1)
    return emitOpError() << "heads, head_dim and factor must be >= 1, got " << h
                         << ", " << d << ", " << f;
  RankedTensorType in = getInput().getType(), res = getResult().getType();
  if (failed(product(*this, {h, f, d}, "heads * factor * head_dim")))
    return failure();
  if (in.getRank() < 1 || in.getShape().back() != h * d)
    return emitOpError() << "input's last dimension must be heads * head_dim = "
                         << h * d << ", got " << shapeStr(in.getShape());
  SmallVector<int64_t> expected(in.getShape());
  expected.back() = h * f * d;
  if (res.getShape() != ArrayRef<int64_t>(expected) ||
      res.getElementType() != in.getElementType())
    return emitOpError() << "result must have shape " << shapeStr(expected)
                         << " and element type " << in.getElementType()
                         << ", got " << res;
  return success();
}

//===----------------------------------------------------------------------===//
// Vocabulary-parallel cross-entropy
//===----------------------------------------------------------------------===//

/// `t` must have the logits' shape without the vocabulary dimension.
static LogicalResult verifyPerToken(Operation *op, RankedTensorType logits,
                                    Type t, StringRef what) {
  if (logits.getRank() < 1)
    return op->emitOpError() << "logits must have rank >= 1, got " << logits;
  ArrayRef<int64_t> tokens = logits.getShape().drop_back();
  if (cast<RankedTensorType>(t).getShape() != tokens)
    return op->emitOpError() << what << " must have shape " << shapeStr(tokens)
                             << " (the logits' without the vocabulary), got "
                             << shapeStr(cast<RankedTensorType>(t).getShape());
  return success();
}

LogicalResult LogitsMaxOp::verify() {
  return verifyPerToken(*this, getLogits().getType(), getResult().getType(),
                        "result");
}

LogicalResult LogitsSumExpOp::verify() {
  RankedTensorType logits = getLogits().getType();
  if (failed(verifyPerToken(*this, logits, getMax().getType(), "max")))
    return failure();
  return verifyPerToken(*this, logits, getResult().getType(), "result");
}

LogicalResult LabelLogitOp::verify() {
  RankedTensorType logits = getLogits().getType();
  if (failed(verifyPerToken(*this, logits, getLabels().getType(), "labels")))
    return failure();
  return verifyPerToken(*this, logits, getResult().getType(), "result");
}

LogicalResult CrossEntropyFromStatsOp::verify() {
  ArrayRef<int64_t> shape = getLabels().getType().getShape();
  std::pair<StringRef, Value> stats[] = {{"max", getMax()},
                                         {"sumexp", getSumexp()},
                                         {"label_logit", getLabelLogit()}};
  for (auto [name, v] : stats)
    if (cast<RankedTensorType>(v.getType()).getShape() != shape)
      return emitOpError() << name << " must have the labels' shape "
                           << shapeStr(shape) << ", got " << v.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// CrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::verify() {
  RankedTensorType logits = getLogits().getType(),
                   labels = getLabels().getType();
  if (logits.getRank() < 1)
    return emitOpError() << "logits must have rank >= 1, got " << logits;
  if (labels.getShape() != logits.getShape().drop_back())
    return emitOpError() << "labels must have shape "
                         << shapeStr(logits.getShape().drop_back())
                         << " (the logits' without the vocabulary), got "
                         << shapeStr(labels.getShape());
  return success();
}

#define GET_OP_CLASSES
#include "seqpar/Dialect/Tfm/IR/TfmOps.cpp.inc"

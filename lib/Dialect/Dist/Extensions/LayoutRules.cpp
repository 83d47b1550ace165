//===- LayoutRules.cpp - result layouts from operand layouts --------------===//
//
// The layout algebra of DESIGN.md section 3, one mesh axis at a time. Each
// tfm op accepts some combinations of R / S(d) / P operands and produces a
// determined layout; everything else is a bug in the SPMD program and gets a
// diagnostic that names the operand and the axis. The rules are attached to
// the tfm ops as ShardingRuleOpInterface external models (one line per op
// below; ops sharing a rule share its function).
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Extensions/TfmModels.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

Sharding dist::shardingOf(Value v, StringRef axis) {
  return typeSharding(v, axis);
}

namespace {
using Result = FailureOr<SmallVector<Sharding>>;

/// Helpers bound to one op and axis.
struct Rule {
  Operation *op;
  StringRef axis;

  Sharding of(Value v) const { return shardingOf(v, axis); }

  static int64_t rank(Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  }
  static bool isSplitOn(Sharding s, int64_t d) {
    return s.isSplit() && s.dim == d;
  }

  /// Describes operand `v` for a diagnostic.
  std::string name(Value v) const {
    for (OpOperand &use : op->getOpOperands())
      if (use.get() == v) {
        std::string s = "operand #" + std::to_string(use.getOperandNumber());
        if (Operation *def = v.getDefiningOp())
          s += " (from " + def->getName().getStringRef().str() + ")";
        return s;
      }
    return "a value";
  }

  InFlightDiagnostic error(Value v, const Twine &what) const {
    return op->emitOpError() << name(v) << " is " << of(v).str()
                             << " on mesh axis '" << axis << "': " << what;
  }

  LogicalResult notPartial(Value v, StringRef why) const {
    if (of(v).isPartial())
      return error(v, why);
    return success();
  }

  LogicalResult replicated(Value v, StringRef why) const {
    if (v && !of(v).isReplicated())
      return error(v, why);
    return success();
  }

  Result same(Sharding s, size_t n = 1) const {
    return SmallVector<Sharding>(n, s);
  }
};
} // namespace

static Result normRule(Rule r, Value x, Value weight, Value bias) {
  Sharding s = r.of(x);
  if (s.isPartial())
    return r.error(x, "a norm of a partial value is not the norm of the sum; "
                      "all-reduce or reduce-scatter it first");
  if (Rule::isSplitOn(s, Rule::rank(x) - 1))
    return r.error(x, "the normalised (last) dimension must be whole");
  if (failed(r.replicated(weight, "norm weights must be replicated")) ||
      failed(r.replicated(bias, "norm biases must be replicated")))
    return failure();
  return r.same(s);
}

/// The layout of a GEMM's result (tfm.linear's, tfm.linear_gelu's pre).
static Result gemmRule(Rule r, Value x, Value w, Value b, WeightLayout layout) {
  bool outIn = layout == WeightLayout::out_in;
  int64_t inDim = outIn ? 1 : 0, outDim = outIn ? 0 : 1;
  int64_t last = Rule::rank(x) - 1;
  Sharding sx = r.of(x), sw = r.of(w);
  if (Rule::isSplitOn(sx, last)) {
    // Row-parallel: each rank contracts its slice of the features.
    if (!Rule::isSplitOn(sw, inDim) || sw.blocks != 1)
      return r.error(w, "a GEMM whose input is split on its features needs "
                        "the weight split on its input features (S(" +
                            Twine(inDim) + "))");
    if (b)
      return r.error(b, "a bias added to a partial product would be counted "
                        "once per rank; add it after the reduction");
    return r.same(Sharding::partial());
  }
  if (Rule::isSplitOn(sw, outDim)) {
    // Column-parallel: every rank computes its slice of the outputs.
    if (!sx.isReplicated())
      return r.error(x, "a column-parallel GEMM needs its whole input; "
                        "all-gather it first");
    Sharding out = Sharding::split(last, sw.blocks);
    if (b && r.of(b) != Sharding::split(0, sw.blocks))
      return r.error(b, "the bias must be split like the weight's outputs");
    return r.same(out);
  }
  if (!sw.isReplicated())
    return r.error(w, "the weight must be replicated or split on its input "
                      "or output features");
  if (sx.isPartial() && b)
    return r.error(b, "a bias added to a partial product would be counted "
                      "once per rank");
  if (failed(r.replicated(b, "the bias of a replicated GEMM must be "
                             "replicated")))
    return failure();
  return r.same(sx);
}

static Result linearRule(Rule r, LinearOp op) {
  return gemmRule(r, op.getInput(), op.getWeight(), op.getBias(),
                  op.getWeightLayout());
}

/// gelu(x W + b): the GEMM's rule, and a GELU of a whole value.
static Result linearGeluRule(Rule r, LinearGeluOp op) {
  Result pre = gemmRule(r, op.getInput(), op.getWeight(), op.getBias(),
                        op.getWeightLayout());
  if (failed(pre))
    return failure();
  if ((*pre)[0].isPartial())
    return r.error(op.getInput(), "the GELU of a partial product is not the "
                                  "GELU of the sum; reduce it first");
  return r.same((*pre)[0], 2);
}

/// Context parallelism: the queries are this rank's zigzag part of the
/// sequence; the keys, values and positions are the whole sequence.
static Result contextAttentionRule(Rule r, AttentionOp op, Sharding s) {
  for (Value v : {op.getK(), op.getV(), op.getPositions()})
    if (v && !r.of(v).isReplicated())
      return r.error(v, "keys, values and positions of context-parallel "
                        "queries must be the whole sequence; all-gather "
                        "them over the context axis");
  return r.same(s);
}

static Result attentionRule(Rule r, AttentionOp op) {
  Sharding s = r.of(op.getQ());
  if (s.isZigzag() && s.dim == 0)
    return contextAttentionRule(r, op, s);
  for (Value v : {op.getK(), op.getV()})
    if (r.of(v) != s)
      return r.error(v, "keys and values must be split like the queries (" +
                            s.str() + ")");
  if (s.isPartial())
    return r.error(op.getQ(), "attention of a partial value is not the "
                              "attention of the sum");
  if (Rule::isSplitOn(s, 0))
    return r.error(op.getQ(),
                   "attention over a sequence split across ranks needs "
                   "context parallelism (a zigzag split with whole keys and "
                   "values); all-gather the sequence first");
  if (s.isSplit() && s.blocks != 1)
    return r.error(op.getQ(), "heads must be split contiguously");
  if (Value pos = op.getPositions()) {
    // Positions are [s, b]: split with the batch, whole otherwise.
    Sharding want = Rule::isSplitOn(s, 1) ? s : Sharding::replicated();
    if (r.of(pos) != want)
      return r.error(pos, "positions must be " + want.str() +
                              " to match the queries");
  }
  return r.same(s);
}

/// Ops reading a vocabulary dimension that may be split (vocab-parallel
/// cross-entropy): a split vocabulary makes the result partial.
static Result perTokenRule(Rule r, Value logits, ArrayRef<Value> perToken) {
  Sharding s = r.of(logits);
  if (s.isPartial())
    return r.error(logits, "logits must not be partial");
  Sharding tokens =
      Rule::isSplitOn(s, Rule::rank(logits) - 1) ? Sharding::replicated() : s;
  for (Value v : perToken)
    if (r.of(v) != tokens)
      return r.error(v, "per-token values must be " + tokens.str() +
                            " to match the logits");
  return r.same(tokens.isReplicated() && s.isSplit() ? Sharding::partial()
                                                     : tokens);
}

/// Parameter reads and position ids: layouts are declared by the type; only
/// partial sources are wrong.
static Result sourceRule(Rule r, Operation *o) {
  Value res = o->getResult(0);
  if (r.of(res).isPartial())
    return o->emitOpError()
           << "result cannot be partial on mesh axis '" << r.axis << "'";
  return r.same(r.of(res));
}

static Result embeddingRule(Rule r, EmbeddingOp e) {
  Sharding st = r.of(e.getTable()), si = r.of(e.getIds());
  if (si.isPartial())
    return r.error(e.getIds(), "token ids cannot be partial");
  if (Rule::isSplitOn(st, 0)) {
    if (!si.isReplicated())
      return r.error(e.getIds(), "a vocab-parallel lookup needs every "
                                 "token id on every rank");
    return r.same(Sharding::partial());
  }
  if (Rule::isSplitOn(st, 1))
    return si.isReplicated()
               ? r.same(Sharding::split(Rule::rank(e.getIds())))
               : Result(r.error(e.getIds(), "ids must be whole when "
                                            "the hidden size is split"));
  return r.same(si);
}

static Result layerNormRule(Rule r, LayerNormOp n) {
  return normRule(r, n.getInput(), n.getWeight(), n.getBias());
}

static Result rmsNormRule(Rule r, RmsNormOp n) {
  return normRule(r, n.getInput(), n.getWeight(), Value());
}

/// lhs + rhs, then its norm: the norm's rule on the operands (which the op
/// makes one type, layouts included); the sum and the norm keep the layout.
static Result addNormRule(Rule r, Operation *o, Value weight, Value bias) {
  Value lhs = o->getOperand(0);
  if (failed(normRule(r, lhs, weight, bias)))
    return failure();
  return r.same(r.of(lhs), 2);
}

static Result addLayerNormRule(Rule r, AddLayerNormOp n) {
  return addNormRule(r, n, n.getWeight(), n.getBias());
}

static Result addRmsNormRule(Rule r, AddRmsNormOp n) {
  return addNormRule(r, n, n.getWeight(), Value());
}

/// Unary elementwise ops (dropout, gelu, silu, ...): any layout but partial
/// (the op is not linear), kept.
static Result unaryElementwiseRule(Rule r, Operation *o) {
  Value x = o->getOperand(0);
  if (failed(r.notPartial(x, "a nonlinear op of a partial value is "
                             "not the op of the sum")))
    return failure();
  return r.same(r.of(x));
}

/// A conversion keeps the layout, partial values included: each rank
/// converts its contribution (a gradient is rounded to its operand's type
/// before it is reduced).
static Result convertRule(Rule r, ConvertOp o) {
  return r.same(r.of(o.getInput()));
}

static Result repeatHeadsRule(Rule r, RepeatHeadsOp o) {
  Value x = o.getInput();
  if (failed(r.notPartial(x, "a nonlinear op of a partial value is "
                             "not the op of the sum")))
    return failure();
  if (Rule::isSplitOn(r.of(x), Rule::rank(x) - 1))
    return r.error(x, "heads to repeat must be whole");
  return r.same(r.of(x));
}

/// Binary elementwise ops: both operands alike, the result alike. A sum of
/// partial values is partial; a product is not (`linear` false).
static Result binaryElementwiseRule(Rule r, Operation *o, bool linear) {
  Value a = o->getOperand(0), b = o->getOperand(1);
  if (r.of(a) != r.of(b))
    return r.error(b, "both operands must have the same layout (the "
                      "other is " +
                          r.of(a).str() + ")");
  if (!linear && failed(r.notPartial(a, "a product of partial values is not "
                                        "the product of the sums")))
    return failure();
  return r.same(r.of(a));
}

/// residual + dropout(x): the dropout's rule on x, the residual alike.
static Result dropoutAddRule(Rule r, DropoutAddOp o) {
  Value x = o.getInput();
  if (failed(r.notPartial(x, "a nonlinear op of a partial value is not the "
                             "op of the sum")))
    return failure();
  if (r.of(o.getResidual()) != r.of(x))
    return r.error(o.getResidual(), "the residual must have the dropout "
                                    "input's layout (" +
                                        r.of(x).str() + ")");
  return r.same(r.of(x));
}

static Result sumRule(Rule r, Operation *o) {
  return binaryElementwiseRule(r, o, /*linear=*/true);
}

static Result productRule(Rule r, Operation *o) {
  return binaryElementwiseRule(r, o, /*linear=*/false);
}

static Result biasAddRule(Rule r, BiasAddOp o) {
  Value x = o.getInput();
  Sharding s = r.of(x);
  if (s.isPartial())
    return r.error(x, "a bias added to a partial value would be "
                      "counted once per rank");
  Sharding want = Rule::isSplitOn(s, Rule::rank(x) - 1)
                      ? Sharding::split(0, s.blocks)
                      : Sharding::replicated();
  if (r.of(o.getBias()) != want)
    return r.error(o.getBias(), "the bias must be " + want.str() +
                                    " to match the input's features");
  return r.same(s);
}

static Result qkvSplitRule(Rule r, QkvSplitOp q) {
  Value x = q.getInput();
  Sharding s = r.of(x);
  if (s.isPartial())
    return r.error(x, "cannot split a partial projection into heads");
  if (Rule::isSplitOn(s, Rule::rank(x) - 1)) {
    int64_t want = q.getPacking() == QkvPacking::blocks ? 3 : 1;
    if (s.blocks != want)
      return r.error(x, "'" + stringifyQkvPacking(q.getPacking()) +
                            "' packing needs the fused features split "
                            "in " +
                            Twine(want) + " block(s)");
    return r.same(Sharding::split(s.dim), 3);
  }
  return r.same(s, 3);
}

static Result logitsMaxRule(Rule r, LogitsMaxOp o) {
  return perTokenRule(r, o.getLogits(), {});
}

static Result logitsSumExpRule(Rule r, LogitsSumExpOp o) {
  return perTokenRule(r, o.getLogits(), {o.getMax()});
}

static Result labelLogitRule(Rule r, LabelLogitOp o) {
  return perTokenRule(r, o.getLogits(), {o.getLabels()});
}

/// The loss, from logits or from the vocab-parallel statistics.
static Result crossEntropyRule(Rule r, Operation *o) {
  Value logits = o->getOperand(0);
  Sharding s = r.of(logits);
  if (isa<CrossEntropyOp>(o) && Rule::isSplitOn(s, Rule::rank(logits) - 1))
    return r.error(logits, "a split vocabulary needs the "
                           "vocab-parallel cross-entropy");
  if (s.isPartial())
    return r.error(logits, "the loss needs complete statistics; "
                           "reduce them first");
  Value count = isa<CrossEntropyOp>(o)
                    ? cast<CrossEntropyOp>(o).getCount()
                    : cast<CrossEntropyFromStatsOp>(o).getCount();
  for (Value v : o->getOperands())
    if (v != count && r.of(v) != s)
      return r.error(v, "every per-token input must be " + s.str() +
                            " like the first");
  if (failed(r.replicated(count, "the label count must be the whole "
                                 "batch's (all-reduce it first)")))
    return failure();
  // Tokens split over the axis: each rank's share of the mean, to be
  // summed (all_reduce sum) when it divides by the global count, averaged
  // (all_reduce mean) when by its own.
  return r.same(s.isReplicated() ? s : Sharding::partial());
}

/// One micro-batch of [M, ...] inputs: the input's layout one dimension
/// lower; the micro-batch dimension is whole on every rank.
static Result microBatchRule(Rule r, MicroBatchOp o) {
  Sharding s = r.of(o.getInput());
  if (s.isPartial())
    return r.error(o.getInput(), "token ids and labels cannot be partial");
  if (Rule::isSplitOn(s, 0))
    return r.error(o.getInput(), "the micro-batch dimension cannot be split");
  if (s.isSplit())
    --s.dim;
  return r.same(s);
}

/// A loop over micro-batches: each body argument is micro-batch i of its
/// input (as microBatchRule), and each result sums what the body yields
/// for it, one micro-batch after the other: the yield's layout.
static Result microBatchLoopRule(Rule r, MicroBatchLoopOp o) {
  Block &body = o.getBody().front();
  for (auto [in, arg] : llvm::zip(o.getInputs(), body.getArguments())) {
    Sharding s = r.of(in);
    if (s.isPartial())
      return r.error(in, "token ids and labels cannot be partial");
    if (Rule::isSplitOn(s, 0))
      return r.error(in, "the micro-batch dimension cannot be split");
    if (s.isSplit())
      --s.dim;
    if (r.of(arg) != s)
      return o.emitOpError()
             << "body argument #" << arg.getArgNumber() << " is "
             << r.of(arg).str() << " on mesh axis '" << r.axis
             << "' but its input makes it " << s.str();
  }
  SmallVector<Sharding> out;
  for (Value v : body.getTerminator()->getOperands())
    out.push_back(r.of(v));
  return out;
}

/// The count of the labels this rank holds: partial where they are split.
static Result labelCountRule(Rule r, LabelCountOp o) {
  Sharding s = r.of(o.getLabels());
  if (s.isPartial())
    return r.error(o.getLabels(), "labels cannot be partial");
  return r.same(s.isReplicated() ? s : Sharding::partial());
}

namespace {
/// The sharding rule of `OpT` is `Fn(Rule, OpT)` (or `Fn(Rule, Operation *)`
/// for a rule shared by several ops).
template <typename OpT, auto Fn>
struct RuleModel
    : ShardingRuleOpInterface::ExternalModel<RuleModel<OpT, Fn>, OpT> {
  Result inferResultShardings(Operation *op, StringRef axis) const {
    return Fn(Rule{op, axis}, cast<OpT>(op));
  }
};

/// Attaches the rule `Fn` to each of `OpTs`.
template <auto Fn, typename... OpTs> void attachRule(MLIRContext *ctx) {
  (OpTs::template attachInterface<RuleModel<OpTs, Fn>>(*ctx), ...);
}
} // namespace

void dist::registerTfmShardingRuleModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TfmDialect *) {
    attachRule<sourceRule, GetParamOp, PositionIdsOp>(ctx);
    attachRule<embeddingRule, EmbeddingOp>(ctx);
    attachRule<layerNormRule, LayerNormOp>(ctx);
    attachRule<rmsNormRule, RmsNormOp>(ctx);
    attachRule<addLayerNormRule, AddLayerNormOp>(ctx);
    attachRule<addRmsNormRule, AddRmsNormOp>(ctx);
    // A new unary elementwise op (a nonlinearity) is one more name here.
    attachRule<unaryElementwiseRule, DropoutOp, GeluOp, SiluOp>(ctx);
    attachRule<unaryElementwiseRule, ReluOp>(ctx);
    attachRule<convertRule, ConvertOp>(ctx);
    attachRule<repeatHeadsRule, RepeatHeadsOp>(ctx);
    attachRule<sumRule, AddOp>(ctx);
    attachRule<dropoutAddRule, DropoutAddOp>(ctx);
    attachRule<productRule, MulOp, SwigluOp>(ctx);
    attachRule<biasAddRule, BiasAddOp>(ctx);
    attachRule<linearRule, LinearOp>(ctx);
    attachRule<linearGeluRule, LinearGeluOp>(ctx);
    attachRule<qkvSplitRule, QkvSplitOp>(ctx);
    attachRule<attentionRule, AttentionOp>(ctx);
    attachRule<logitsMaxRule, LogitsMaxOp>(ctx);
    attachRule<logitsSumExpRule, LogitsSumExpOp>(ctx);
    attachRule<labelLogitRule, LabelLogitOp>(ctx);
    attachRule<crossEntropyRule, CrossEntropyFromStatsOp, CrossEntropyOp>(ctx);
    attachRule<labelCountRule, LabelCountOp>(ctx);
    attachRule<microBatchRule, MicroBatchOp>(ctx);
    attachRule<microBatchLoopRule, MicroBatchLoopOp>(ctx);
  });
}

FailureOr<SmallVector<Sharding>> dist::inferResultShardings(Operation *op,
                                                            StringRef axis) {
  if (auto rule = dyn_cast<ShardingRuleOpInterface>(op))
    return rule.inferResultShardings(axis);
  return SmallVector<Sharding>();
}

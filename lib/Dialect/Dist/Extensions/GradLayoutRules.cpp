//===- GradLayoutRules.cpp - layout rules of the backward ops -------------===//
//
// The backward ops of a train step follow the same algebra as the forward
// (LayoutRules.cpp): a gradient of a column-parallel GEMM's input is partial,
// a sum over tokens split across ranks is partial, and so on. sp-verify
// checks every backward op with these rules, so an autodiff mistake is a
// diagnostic, not a wrong gradient. Attached to the backward and optimizer
// ops as ShardingRuleOpInterface external models, like the forward rules.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Extensions/TfmModels.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

namespace {
using Result = FailureOr<SmallVector<Sharding>>;

struct GradRule {
  Operation *op;
  StringRef axis;

  Sharding of(Value v) const { return shardingOf(v, axis); }
  static int64_t last(Value v) {
    return cast<RankedTensorType>(v.getType()).getRank() - 1;
  }
  /// Split along a dimension other than the last: tokens (sequence, batch).
  static bool tokenSplit(Sharding s, Value v) {
    return s.isSplit() && s.dim != last(v);
  }

  InFlightDiagnostic error(Value v, const Twine &what) const {
    std::string name = "a value";
    for (OpOperand &use : op->getOpOperands())
      if (use.get() == v)
        name = "operand #" + std::to_string(use.getOperandNumber());
    return op->emitOpError() << name << " is " << of(v).str()
                             << " on mesh axis '" << axis << "': " << what;
  }

  /// The sharding of a sum over tokens of values sharded like `s` (of `v`):
  /// partial if the tokens are split, otherwise as is.
  static Sharding summedOverTokens(Sharding s, Value v) {
    return tokenSplit(s, v) ? Sharding::partial() : s;
  }

  static Result same(Sharding s, size_t n = 1) {
    return SmallVector<Sharding>(n, s);
  }
};
} // namespace

/// The input gradient dx = dy op(W)'s sharding (tfm.linear_grad_input's, and
/// tfm.linear_gelu_grad's before its GELU).
static Result gradInputRule(GradRule r, Value dy, Value w, Value dx,
                            WeightLayout layout) {
  bool outIn = layout == WeightLayout::out_in;
  int64_t inDim = outIn ? 1 : 0, outDim = outIn ? 0 : 1;
  Sharding sdy = r.of(dy), sw = r.of(w);
  if (sw.isSplit() && sw.dim == outDim) {
    if (sdy != Sharding::split(GradRule::last(dy), sw.blocks))
      return r.error(dy, "the gradient of a column-parallel GEMM's "
                         "output must be split like its features");
    return GradRule::same(Sharding::partial());
  }
  if (sw.isSplit() && sw.dim == inDim) {
    if (!sdy.isReplicated())
      return r.error(dy, "the gradient of a row-parallel GEMM's "
                         "output must be whole");
    return GradRule::same(Sharding::split(GradRule::last(dx)));
  }
  if (sdy.isSplit() && sdy.dim == GradRule::last(dy))
    return r.error(dy, "features split across ranks need the weight "
                       "split on its outputs");
  return GradRule::same(sdy);
}

static Result linearGradInput(GradRule r, LinearGradInputOp o) {
  return gradInputRule(r, o.getDy(), o.getWeight(), o.getDx(),
                       o.getWeightLayout());
}

/// The bias gradient's sharding for a dy sharded `s`: split like its
/// features, else summed over the tokens.
static Sharding biasGradSharding(Sharding s, Value dy) {
  if (s.isSplit() && s.dim == GradRule::last(dy))
    return Sharding::split(0, s.blocks);
  return GradRule::summedOverTokens(s, dy);
}

/// The input gradient's rule, then the GELU's gradient of a whole value
/// (pre sharded alike), then the bias gradient's.
static Result linearGeluGrad(GradRule r, LinearGeluGradOp o) {
  Result in = gradInputRule(r, o.getDy(), o.getWeight(), o.getDx(),
                            o.getWeightLayout());
  if (failed(in))
    return failure();
  Sharding s = (*in)[0];
  if (s.isPartial())
    return r.error(o.getDy(), "the GELU's gradient of a partial input "
                              "gradient is not the gradient of the sum; "
                              "reduce it first");
  if (r.of(o.getPre()) != s)
    return r.error(o.getPre(),
                   "must be sharded like the input gradient (" + s.str() + ")");
  SmallVector<Sharding> out{s};
  if (o.getDbias())
    out.push_back(biasGradSharding(s, o.getDx()));
  return out;
}

/// The weight gradient dW = dy^T x's sharding (tfm.linear_grad_weight's,
/// and tfm.linear_grad_weight_bias's first result).
static Result gradWeightRule(GradRule r, Value x, Value dy,
                             WeightLayout layout) {
  bool outIn = layout == WeightLayout::out_in;
  int64_t inDim = outIn ? 1 : 0, outDim = outIn ? 0 : 1;
  Sharding sx = r.of(x), sdy = r.of(dy);
  if (sx.isSplit() && sx.dim == GradRule::last(x)) {
    if (!sdy.isReplicated())
      return r.error(dy, "with the input split on its features the output "
                         "gradient must be whole");
    return GradRule::same(Sharding::split(inDim, sx.blocks));
  }
  if (sdy.isSplit() && sdy.dim == GradRule::last(dy)) {
    if (!sx.isReplicated())
      return r.error(x, "with the output gradient split on its features "
                        "the input must be whole");
    return GradRule::same(Sharding::split(outDim, sdy.blocks));
  }
  if (sx.isPartial() && sdy.isPartial())
    return r.error(dy, "a product of two partial values is not partial");
  if (sx.isPartial() || sdy.isPartial())
    return GradRule::same(Sharding::partial());
  if (sx != sdy)
    return r.error(dy, "must be split over the tokens like the input (" +
                           sx.str() + ")");
  return GradRule::same(GradRule::summedOverTokens(sx, x));
}

static Result linearGradWeight(GradRule r, LinearGradWeightOp o) {
  return gradWeightRule(r, o.getInput(), o.getDy(), o.getWeightLayout());
}

/// The weight gradient's rule, then the bias gradient's of dy.
static Result linearGradWeightBias(GradRule r, LinearGradWeightBiasOp o) {
  Result out = gradWeightRule(r, o.getInput(), o.getDy(), o.getWeightLayout());
  if (failed(out))
    return failure();
  out->push_back(biasGradSharding(r.of(o.getDy()), o.getDy()));
  return out;
}

/// Norm backward: dy, x and the residual (if any) alike; dx alike; weight
/// gradients summed over tokens.
static Result normGrad(GradRule r, Operation *o, Value dy, Value x,
                       Value residual, unsigned weightGrads) {
  Sharding s = r.of(x);
  for (Value v : {dy, residual})
    if (v && r.of(v) != s)
      return r.error(v,
                     "must be sharded like the norm's input (" + s.str() + ")");
  if (s.isPartial() || (s.isSplit() && s.dim == GradRule::last(x)))
    return r.error(x, "a norm's input is never partial nor split on its "
                      "normalised dimension");
  SmallVector<Sharding> out{s};
  out.append(weightGrads, GradRule::summedOverTokens(s, x));
  return out;
}

/// The result's own sharding when the operands leave a choice (a gradient
/// of a table split over the vocabulary, or whole), else `fixed`.
static Result declaredOr(GradRule r, Value result, Sharding fixed,
                         Sharding allowed) {
  Sharding declared = r.of(result);
  if (declared == allowed)
    return GradRule::same(allowed);
  return GradRule::same(fixed);
}

static Result biasGradRule(GradRule r, BiasGradOp o) {
  return GradRule::same(biasGradSharding(r.of(o.getDy()), o.getDy()));
}

static Result layerNormGradRule(GradRule r, LayerNormGradOp o) {
  return normGrad(r, o, o.getDy(), o.getInput(), o.getResidual(), 2);
}

static Result rmsNormGradRule(GradRule r, RmsNormGradOp o) {
  return normGrad(r, o, o.getDy(), o.getInput(), o.getResidual(), 1);
}

/// The backward of a unary elementwise op (dy, x) -> dx: dx like dy; the
/// forward input is never partial.
static Result unaryElementwiseGradRule(GradRule r, Operation *o) {
  Value dy = o->getOperand(0), x = o->getOperand(1);
  if (r.of(x).isPartial())
    return r.error(x, "a nonlinearity's input is never partial");
  return GradRule::same(r.of(dy));
}

/// SwiGLU's backward (dy, gate, up) -> (dgate, dup): products of dy with
/// functions of gate and up, so all three alike and none partial.
static Result swigluGradRule(GradRule r, SwigluGradOp o) {
  Sharding s = r.of(o.getDy());
  for (Value v : {o.getDy(), o.getGate(), o.getUp()}) {
    if (r.of(v).isPartial())
      return r.error(v, "a product of partial values is not the product of "
                        "the sums");
    if (r.of(v) != s)
      return r.error(v, "must be sharded like dy (" + s.str() + ")");
  }
  return GradRule::same(s, 2);
}

/// Linear in their one tensor operand: the result like it.
static Result likeOperandRule(GradRule r, Operation *o) {
  return GradRule::same(r.of(o->getOperand(0)));
}

static Result fillRule(GradRule r, FillOp o) { return GradRule::same(r.of(o)); }

static Result embeddingGradRule(GradRule r, EmbeddingGradOp o) {
  Sharding sdy = r.of(o.getDy());
  if (sdy != r.of(o.getIds()) && !sdy.isPartial())
    return r.error(o.getDy(), "must be split over the tokens like the "
                              "ids");
  if (GradRule::tokenSplit(sdy, o.getDy()) || sdy.isPartial())
    return GradRule::same(Sharding::partial());
  // Whole tokens: the whole table's gradient or this rank's rows.
  return declaredOr(r, o, Sharding::replicated(), Sharding::split(0));
}

static Result qkvConcatRule(GradRule r, QkvConcatOp o) {
  Sharding s = r.of(o.getDq());
  for (Value v : {o.getDk(), o.getDv()})
    if (r.of(v) != s)
      return r.error(v, "q, k and v gradients must be sharded alike");
  if (s.isSplit() && s.dim == GradRule::last(o.getDq()))
    return GradRule::same(
        Sharding::split(s.dim, o.getPacking() == QkvPacking::blocks ? 3 : 1));
  return GradRule::same(s);
}

static Result attentionGradRule(GradRule r, AttentionGradOp o) {
  Sharding s = r.of(o.getQ());
  if (s.isZigzag() && s.dim == 0) {
    // Context parallelism: this rank's queries' contributions to the whole
    // keys' and values' gradients.
    if (r.of(o.getDout()) != s)
      return r.error(o.getDout(), "must be sharded like q (" + s.str() + ")");
    for (Value v : {o.getK(), o.getV()})
      if (!r.of(v).isReplicated())
        return r.error(v, "must be the whole sequence (context-parallel q)");
    return SmallVector<Sharding>{s, Sharding::partial(), Sharding::partial()};
  }
  for (Value v : {o.getDout(), o.getK(), o.getV()})
    if (r.of(v) != s)
      return r.error(v, "must be sharded like q (" + s.str() + ")");
  return GradRule::same(s, 3);
}

static Result crossEntropyGradRule(GradRule r, CrossEntropyGradOp o) {
  if (!r.of(o.getDloss()).isReplicated())
    return r.error(o.getDloss(), "the loss gradient must be whole");
  if (o.getCount() && !r.of(o.getCount()).isReplicated())
    return r.error(o.getCount(), "the label count must be the whole batch's");
  return GradRule::same(r.of(o.getLogits()));
}

static Result crossEntropyFromStatsGradRule(GradRule r,
                                            CrossEntropyFromStatsGradOp o) {
  if (!r.of(o.getDloss()).isReplicated())
    return r.error(o.getDloss(), "the loss gradient must be whole");
  if (o.getCount() && !r.of(o.getCount()).isReplicated())
    return r.error(o.getCount(), "the label count must be the whole batch's");
  return GradRule::same(r.of(o.getSumexp()), 2);
}

static Result logitsSumExpGradRule(GradRule r, LogitsSumExpGradOp o) {
  return GradRule::same(r.of(o.getLogits()));
}

static Result labelLogitGradRule(GradRule r, LabelLogitGradOp o) {
  Sharding s = r.of(o.getLabels());
  if (s.isSplit())
    return GradRule::same(s);
  // Whole tokens: the whole vocabulary or this rank's columns.
  return declaredOr(r, o, Sharding::replicated(),
                    Sharding::split(GradRule::last(o)));
}

/// Partial over an axis that splits the inputs, whole over one that
/// replicates them; a mix would count the replicated inputs once per rank.
static Result sumSquaresRule(GradRule r, SumSquaresOp o) {
  Value first = o.getInputs().front();
  Sharding s = r.of(first);
  for (Value in : o.getInputs().drop_front())
    if (r.of(in).isReplicated() != s.isReplicated())
      return r.error(in, "operand #0 is " + s.str() +
                             "; one sum of squares takes inputs all split or "
                             "all replicated over each axis (a mix counts "
                             "the replicated ones once per rank)");
  return GradRule::same(s.isReplicated() ? s : Sharding::partial());
}

static Result clipScaleRule(GradRule r, ClipScaleOp o) {
  if (!r.of(o.getSumSquares()).isReplicated())
    return r.error(o.getSumSquares(), "the clipping factor needs the "
                                      "whole sum of squares");
  return GradRule::same(Sharding::replicated(), 2);
}

/// A hyperparameter is a host scalar the runtime sets alike on every rank.
static Result hyperparameterRule(GradRule, HyperparameterOp) {
  return GradRule::same(Sharding::replicated());
}

namespace {
/// The sharding rule of `OpT` is `Fn(GradRule, OpT)` (or `Fn(GradRule,
/// Operation *)` for a rule shared by several ops).
template <typename OpT, auto Fn>
struct GradRuleModel
    : ShardingRuleOpInterface::ExternalModel<GradRuleModel<OpT, Fn>, OpT> {
  Result inferResultShardings(Operation *op, StringRef axis) const {
    return Fn(GradRule{op, axis}, cast<OpT>(op));
  }
};

/// Attaches the rule `Fn` to each of `OpTs`.
template <auto Fn, typename... OpTs> void attachRule(MLIRContext *ctx) {
  (OpTs::template attachInterface<GradRuleModel<OpTs, Fn>>(*ctx), ...);
}
} // namespace

void dist::registerTfmGradShardingRuleModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TfmDialect *) {
    attachRule<linearGradInput, LinearGradInputOp>(ctx);
    attachRule<linearGeluGrad, LinearGeluGradOp>(ctx);
    attachRule<linearGradWeight, LinearGradWeightOp>(ctx);
    attachRule<linearGradWeightBias, LinearGradWeightBiasOp>(ctx);
    attachRule<biasGradRule, BiasGradOp>(ctx);
    attachRule<layerNormGradRule, LayerNormGradOp>(ctx);
    attachRule<rmsNormGradRule, RmsNormGradOp>(ctx);
    // The backward of a new unary elementwise op is one more name here.
    attachRule<unaryElementwiseGradRule, GeluGradOp, SiluGradOp>(ctx);
    attachRule<unaryElementwiseGradRule, ReluGradOp>(ctx);
    attachRule<swigluGradRule, SwigluGradOp>(ctx);
    attachRule<likeOperandRule, ScaleOp, RepeatHeadsGradOp>(ctx);
    attachRule<fillRule, FillOp>(ctx);
    attachRule<embeddingGradRule, EmbeddingGradOp>(ctx);
    attachRule<qkvConcatRule, QkvConcatOp>(ctx);
    attachRule<attentionGradRule, AttentionGradOp>(ctx);
    attachRule<crossEntropyGradRule, CrossEntropyGradOp>(ctx);
    attachRule<crossEntropyFromStatsGradRule, CrossEntropyFromStatsGradOp>(ctx);
    attachRule<logitsSumExpGradRule, LogitsSumExpGradOp>(ctx);
    attachRule<labelLogitGradRule, LabelLogitGradOp>(ctx);
    attachRule<sumSquaresRule, SumSquaresOp>(ctx);
    attachRule<clipScaleRule, ClipScaleOp>(ctx);
    attachRule<hyperparameterRule, HyperparameterOp>(ctx);
  });
}

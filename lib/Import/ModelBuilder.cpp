//===- ModelBuilder.cpp - builds a tfm model function ---------------------===//

#include "ModelBuilder.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

ModelBuilder::ModelBuilder(ModuleOp module, Type elementType, ConfigReader &cfg,
                           Dim seqLen, Dim batch)
    : module(module), moduleBuilder(module.getContext()),
      b(module.getContext()), elementType(elementType),
      elementBytes(elementType.getIntOrFloatBitWidth() / 8), cfg(cfg),
      seq(std::move(seqLen)), batch(std::move(batch)),
      loc(UnknownLoc::get(module.getContext())) {
  moduleBuilder.setInsertionPointToEnd(module.getBody());
  cfg.elements("the input 'input_ids'", {seq, this->batch}, /*elementBytes=*/8);
  auto tokens =
      RankedTensorType::get({seq.value, this->batch.value}, b.getI64Type());
  auto lossType = RankedTensorType::get({}, b.getF32Type());
  // Parameters are declared before the function that reads them.
  forward = moduleBuilder.create<func::FuncOp>(
      loc, "forward", b.getFunctionType({tokens, tokens}, {lossType}));
  forward->setAttr(TfmDialect::ForwardAttrHelper::getNameStr(),
                   b.getUnitAttr());
  StringRef name = TfmDialect::NameAttrHelper::getNameStr();
  forward.setArgAttr(0, name, b.getStringAttr("input_ids"));
  forward.setArgAttr(1, name, b.getStringAttr("labels"));
  b.setInsertionPointToStart(forward.addEntryBlock());
  moduleBuilder.setInsertionPoint(forward);
}

void ModelBuilder::checkpointNames(StringRef basePrefix,
                                   ArrayRef<StringRef> bufferSuffixes) {
  module->setAttr(tfm::TfmDialect::HfBasePrefixAttrHelper::getNameStr(),
                  b.getStringAttr(basePrefix));
  module->setAttr(tfm::TfmDialect::HfBuffersAttrHelper::getNameStr(),
                  b.getStrArrayAttr(bufferSuffixes));
}

void ModelBuilder::at(StringRef path) {
  this->path = path.str();
  loc = NameLoc::get(b.getStringAttr(path));
}

RankedTensorType ModelBuilder::activation(const Dim &width) {
  cfg.elements("the activation of '" + path + "'", {seq, batch, width},
               elementBytes);
  return RankedTensorType::get({seq.value, batch.value, width.value},
                               elementType);
}

void ModelBuilder::countParams(int64_t count, const Dim &blame,
                               StringRef name) {
  std::optional<int64_t> total = llvm::checkedAdd(paramElements, count);
  if (total && llvm::checkedMul(*total, elementBytes)) {
    paramElements = *total;
    return;
  }
  cfg.failInput(blame.origin, blame.originValue,
                "is too large: the parameters up to '" + name +
                    "' have 2^63 or more bytes in all");
}

Value ModelBuilder::param(StringRef name, ArrayRef<Dim> shape, InitKind init,
                          double std) {
  SmallVector<int64_t, 2> dims;
  for (const Dim &d : shape)
    dims.push_back(d.value);
  auto type = RankedTensorType::get(dims, elementType);
  if (declared.insert(name).second) {
    int64_t count =
        cfg.elements("parameter '" + name + "'", shape, elementBytes);
    const Dim *blame = &shape.front();
    for (const Dim &d : shape)
      if (d.originValue > blame->originValue)
        blame = &d;
    countParams(count, *blame, name);
    FloatAttr stdAttr =
        init == InitKind::normal ? b.getF64FloatAttr(std) : FloatAttr();
    moduleBuilder.create<ParamOp>(NameLoc::get(b.getStringAttr(name)), name,
                                  type, init, stdAttr, StringAttr());
  }
  return b.create<GetParamOp>(loc, type, name);
}

void ModelBuilder::checkLayerCount(const Dim &layers) {
  int64_t perLayer = paramElements - paramsBeforeLayers;
  std::optional<int64_t> all = llvm::checkedMul(perLayer, layers.value);
  if (all)
    all = llvm::checkedAdd(*all, paramsBeforeLayers);
  if (all && llvm::checkedMul(*all, elementBytes))
    return;
  cfg.failInput(layers.origin, layers.originValue,
                "is too large: " + Twine(layers.value) + " layers of " +
                    Twine(perLayer) + " parameters each have 2^63 or more " +
                    "bytes in all");
}

Value ModelBuilder::linear(Value x, StringRef prefix, const Dim &in,
                           const Dim &out, bool bias, WeightLayout layout,
                           double std) {
  SmallVector<Dim, 2> shape = layout == WeightLayout::out_in
                                  ? SmallVector<Dim, 2>{out, in}
                                  : SmallVector<Dim, 2>{in, out};
  Value w = param((prefix + ".weight").str(), shape, InitKind::normal, std);
  Value bv =
      bias ? param((prefix + ".bias").str(), {out}, InitKind::zeros) : Value();
  return b.create<LinearOp>(loc, activation(out), x, w, bv, layout);
}

Value ModelBuilder::linearWith(Value x, Value weight, const Dim &out) {
  return b.create<LinearOp>(loc, activation(out), x, weight, Value(),
                            WeightLayout::out_in);
}

Value ModelBuilder::layerNorm(Value x, StringRef prefix, const Dim &width,
                              double eps, bool bias) {
  Value w = param((prefix + ".weight").str(), {width}, InitKind::ones);
  Value bv = bias ? param((prefix + ".bias").str(), {width}, InitKind::zeros)
                  : Value();
  return b.create<LayerNormOp>(loc, x.getType(), x, w, bv,
                               b.getF64FloatAttr(eps));
}

Value ModelBuilder::rmsNorm(Value x, StringRef prefix, const Dim &width,
                            double eps) {
  Value w = param((prefix + ".weight").str(), {width}, InitKind::ones);
  return b.create<RmsNormOp>(loc, x.getType(), x, w, b.getF64FloatAttr(eps));
}

Value ModelBuilder::dropout(Value x, double rate) {
  if (rate == 0.0)
    return x;
  return b.create<DropoutOp>(loc, x, b.getF64FloatAttr(rate),
                             b.getI64IntegerAttr(nextStream++));
}

Value ModelBuilder::embedding(Value ids, Value table, const Dim &width) {
  return b.create<EmbeddingOp>(loc, activation(width), ids, table);
}

Value ModelBuilder::positionIds() {
  if (!positions)
    positions = b.create<PositionIdsOp>(
        loc, RankedTensorType::get({seq.value, batch.value}, b.getI64Type()));
  return positions;
}

Value ModelBuilder::qkvSplit(Value qkv, QkvPacking packing, int64_t heads,
                             int64_t kvHeads, int64_t headDim,
                             const Dim &qWidth, const Dim &kvWidth, Value &k,
                             Value &v) {
  RankedTensorType kvType = activation(kvWidth);
  auto split =
      b.create<QkvSplitOp>(loc, TypeRange{activation(qWidth), kvType, kvType},
                           qkv, packing, heads, kvHeads, headDim);
  k = split.getK();
  v = split.getV();
  return split.getQ();
}

Value ModelBuilder::attention(Value q, Value k, Value v, const Dim &heads,
                              int64_t kvHeads, int64_t headDim,
                              int64_t rotaryDim, double rotaryTheta,
                              double dropoutRate) {
  // The runtime numbers the scores of every (batch, head) as one
  // [batch, heads, seq, seq] space (the dropout counter).
  cfg.elements("the attention-score tensor of '" + path + "'",
               {batch, heads, seq, seq}, elementBytes);
  int64_t stream = dropoutRate > 0.0 ? nextStream++ : 0;
  // Causal inside each document: the position ids restart at 0 at a
  // packed document's start (without packing they are 0..seq-1 and the
  // mask is the causal one). A model without a position table gets its
  // position ids at the function's start, outside every layer.
  if (!positions) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&forward.getBody().front());
    positions = b.create<PositionIdsOp>(
        b.getUnknownLoc(),
        RankedTensorType::get({seq.value, batch.value}, b.getI64Type()));
  }
  return b
      .create<AttentionOp>(loc, q.getType(), /*lse=*/Type(), q, k, v, positions,
                           heads.value, kvHeads, headDim,
                           /*causal=*/true, rotaryDim, APFloat(rotaryTheta),
                           APFloat(dropoutRate), stream,
                           /*document_causal=*/true)
      .getResult();
}

Value ModelBuilder::gelu(Value x, GeluApproximation approximate) {
  return b.create<GeluOp>(loc, x, approximate);
}

Value ModelBuilder::silu(Value x) { return b.create<SiluOp>(loc, x); }
Value ModelBuilder::relu(Value x) { return b.create<ReluOp>(loc, x); }

Value ModelBuilder::add(Value a, Value c) { return b.create<AddOp>(loc, a, c); }

Value ModelBuilder::mul(Value a, Value c) { return b.create<MulOp>(loc, a, c); }

void ModelBuilder::finish(Value logits) {
  Value loss = b.create<CrossEntropyOp>(
      loc, RankedTensorType::get({}, b.getF32Type()), logits, labels(),
      /*count=*/Value(), b.getI64IntegerAttr(-100));
  b.create<func::ReturnOp>(loc, loss);
}

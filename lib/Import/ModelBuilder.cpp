//===- ModelBuilder.cpp - builds a tfm model function ---------------------===//

#include "ModelBuilder.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

ModelBuilder::ModelBuilder(ModuleOp module, Type elementType, int64_t seqLen,
                           int64_t batch)
    : module(module), moduleBuilder(module.getContext()),
      b(module.getContext()), elementType(elementType), seq(seqLen),
      batch(batch), loc(UnknownLoc::get(module.getContext())) {
  moduleBuilder.setInsertionPointToEnd(module.getBody());
  auto tokens = RankedTensorType::get({seq, batch}, b.getI64Type());
  auto lossType = RankedTensorType::get({}, b.getF32Type());
  // Parameters are declared before the function that reads them.
  forward = moduleBuilder.create<func::FuncOp>(
      loc, "forward", b.getFunctionType({tokens, tokens}, {lossType}));
  forward.setArgAttr(0, "tfm.name", b.getStringAttr("input_ids"));
  forward.setArgAttr(1, "tfm.name", b.getStringAttr("labels"));
  b.setInsertionPointToStart(forward.addEntryBlock());
  moduleBuilder.setInsertionPoint(forward);
}

void ModelBuilder::at(StringRef path) {
  loc = NameLoc::get(b.getStringAttr(path));
}

RankedTensorType ModelBuilder::activation(int64_t width) {
  return RankedTensorType::get({seq, batch, width}, elementType);
}

Value ModelBuilder::param(StringRef name, ArrayRef<int64_t> shape,
                          InitKind init, double std) {
  auto type = RankedTensorType::get(shape, elementType);
  if (declared.insert(name).second) {
    FloatAttr stdAttr =
        init == InitKind::normal ? b.getF64FloatAttr(std) : FloatAttr();
    moduleBuilder.create<ParamOp>(NameLoc::get(b.getStringAttr(name)), name,
                                  type, init, stdAttr, StringAttr());
  }
  return b.create<GetParamOp>(loc, type, name);
}

Value ModelBuilder::linear(Value x, StringRef prefix, int64_t in, int64_t out,
                           bool bias, WeightLayout layout, double std) {
  SmallVector<int64_t, 2> shape = layout == WeightLayout::out_in
                                      ? SmallVector<int64_t, 2>{out, in}
                                      : SmallVector<int64_t, 2>{in, out};
  Value w = param((prefix + ".weight").str(), shape, InitKind::normal, std);
  Value bv =
      bias ? param((prefix + ".bias").str(), {out}, InitKind::zeros) : Value();
  return b.create<LinearOp>(loc, activation(out), x, w, bv, layout);
}

Value ModelBuilder::linearWith(Value x, Value weight, int64_t out) {
  return b.create<LinearOp>(loc, activation(out), x, weight, Value(),
                            WeightLayout::out_in);
}

Value ModelBuilder::layerNorm(Value x, StringRef prefix, double eps,
                              bool bias) {
  int64_t h = cast<RankedTensorType>(x.getType()).getShape().back();
  Value w = param((prefix + ".weight").str(), {h}, InitKind::ones);
  Value bv =
      bias ? param((prefix + ".bias").str(), {h}, InitKind::zeros) : Value();
  return b.create<LayerNormOp>(loc, x.getType(), x, w, bv,
                               b.getF64FloatAttr(eps));
}

Value ModelBuilder::rmsNorm(Value x, StringRef prefix, double eps) {
  int64_t h = cast<RankedTensorType>(x.getType()).getShape().back();
  Value w = param((prefix + ".weight").str(), {h}, InitKind::ones);
  return b.create<RmsNormOp>(loc, x.getType(), x, w, b.getF64FloatAttr(eps));
}

Value ModelBuilder::dropout(Value x, double rate) {
  if (rate == 0.0)
    return x;
  return b.create<DropoutOp>(loc, x, b.getF64FloatAttr(rate),
                             b.getI64IntegerAttr(nextStream++));
}

Value ModelBuilder::embedding(Value ids, Value table) {
  int64_t h = cast<RankedTensorType>(table.getType()).getDimSize(1);
  return b.create<EmbeddingOp>(loc, activation(h), ids, table);
}

Value ModelBuilder::positionIds() {
  return b.create<PositionIdsOp>(
      loc, RankedTensorType::get({seq, batch}, b.getI64Type()));
}

Value ModelBuilder::qkvSplit(Value qkv, QkvPacking packing, int64_t heads,
                             int64_t kvHeads, int64_t headDim, Value &k,
                             Value &v) {
  auto split = b.create<QkvSplitOp>(loc,
                                    TypeRange{activation(heads * headDim),
                                              activation(kvHeads * headDim),
                                              activation(kvHeads * headDim)},
                                    qkv, packing, heads, kvHeads, headDim);
  k = split.getK();
  v = split.getV();
  return split.getQ();
}

Value ModelBuilder::attention(Value q, Value k, Value v, int64_t heads,
                              int64_t kvHeads, int64_t headDim,
                              int64_t rotaryDim, double rotaryTheta,
                              double dropoutRate) {
  int64_t stream = dropoutRate > 0.0 ? nextStream++ : 0;
  return b.create<AttentionOp>(loc, q.getType(), q, k, v, /*positions=*/Value(),
                               heads, kvHeads, headDim, /*causal=*/true,
                               rotaryDim, APFloat(rotaryTheta),
                               APFloat(dropoutRate), stream);
}

Value ModelBuilder::gelu(Value x, GeluApproximation approximate) {
  return b.create<GeluOp>(loc, x, approximate);
}

Value ModelBuilder::silu(Value x) { return b.create<SiluOp>(loc, x); }

Value ModelBuilder::add(Value a, Value c) { return b.create<AddOp>(loc, a, c); }

Value ModelBuilder::mul(Value a, Value c) { return b.create<MulOp>(loc, a, c); }

void ModelBuilder::finish(Value logits) {
  Value loss =
      b.create<CrossEntropyOp>(loc, RankedTensorType::get({}, b.getF32Type()),
                               logits, labels(), b.getI64IntegerAttr(-100));
  b.create<func::ReturnOp>(loc, loss);
}

//===- TfmSavedForBackward.cpp - what each op keeps for its backward ------===//
//
// The single declaration, per op, of the tensors its backward needs from the
// forward pass (Korthikanti et al. 2022, section 4.1 accounting): inputs of
// norms, GEMMs and activations, attention's Q, K, V, softmax output, dropout
// mask and dropped probabilities, and dropout masks.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

using namespace mlir;
using namespace seqpar::tfm;

using Saved = SmallVectorImpl<SavedTensor>;

static int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

// Ops whose backward needs nothing from the forward pass.
void GetParamOp::getSavedForBackward(Saved &) {}
void PositionIdsOp::getSavedForBackward(Saved &) {}
void MicroBatchOp::getSavedForBackward(Saved &) {}
void QkvSplitOp::getSavedForBackward(Saved &) {}
void AddOp::getSavedForBackward(Saved &) {}
void ConvertOp::getSavedForBackward(Saved &) {}
void BiasAddOp::getSavedForBackward(Saved &) {}
void RepeatHeadsOp::getSavedForBackward(Saved &) {}
void LogitsMaxOp::getSavedForBackward(Saved &) {}
void LabelLogitOp::getSavedForBackward(Saved &) {}

// The gradient of the table scatters into the rows the ids name.
void EmbeddingOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getIds(), "token ids"));
}

void LayerNormOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "norm input"));
}

void RmsNormOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "norm input"));
}

void LinearOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "GEMM input"));
}

/// A dropout's mask (one byte per element in the paper's accounting), when
/// it draws one.
static void savedMask(Saved &saved, double rate, Value input) {
  if (rate > 0.0)
    saved.push_back(SavedTensor::internal(
        SavedTensor::Kind::Mask, numElements(input), Type(), "dropout mask"));
}

// The fused GEMM keeps what tfm.linear and tfm.gelu keep.
void LinearGeluOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "GEMM input"));
  saved.push_back(SavedTensor::of(getPre(), "activation input"));
}

void DropoutOp::getSavedForBackward(Saved &saved) {
  savedMask(saved, getRate().convertToDouble(), getInput());
}

// The fused dropout's mask, as tfm.dropout declares it.
void DropoutAddOp::getSavedForBackward(Saved &saved) {
  savedMask(saved, getRate().convertToDouble(), getInput());
}

// The fused norms keep their norm's input, the sum, and their dropout's
// mask as tfm.dropout declares it.
void AddLayerNormOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getSum(), "norm input"));
  if (getDropout())
    savedMask(saved, getDropout()->convertToDouble(), getLhs());
}

void AddRmsNormOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getSum(), "norm input"));
  if (getDropout())
    savedMask(saved, getDropout()->convertToDouble(), getLhs());
}

void AttentionOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getQ(), "query"));
  saved.push_back(SavedTensor::of(getK(), "key"));
  saved.push_back(SavedTensor::of(getV(), "value"));
  // The rotary angles and the document mask of the backward (position ids
  // from tfm.position_ids are computed again there).
  if (getPositions() && !getPositions().getDefiningOp<PositionIdsOp>())
    saved.push_back(SavedTensor::of(getPositions(), "position ids"));
  // The statistics the backward reads (tfm-save-attention-stats; the
  // result it also reads is kept for the output projection's weight
  // gradient, which declares it).
  if (Value lse = getLse())
    saved.push_back(SavedTensor::of(lse, "softmax statistics",
                                    SavedTensor::Kind::Statistics));
  RankedTensorType q = getQ().getType();
  // [b, heads, s, s] attention probabilities (local heads).
  int64_t probs =
      q.getDimSize(1) * getNumHeads() * q.getDimSize(0) * q.getDimSize(0);
  Type et = q.getElementType();
  saved.push_back(SavedTensor::internal(SavedTensor::Kind::Activation, probs,
                                        et, "softmax output"));
  if (getDropoutRate().convertToDouble() > 0.0) {
    saved.push_back(SavedTensor::internal(SavedTensor::Kind::Mask, probs,
                                          Type(), "attention dropout mask"));
    saved.push_back(SavedTensor::internal(SavedTensor::Kind::Activation, probs,
                                          et, "attention dropout output"));
  }
}

void GeluOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "activation input"));
}

void SiluOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "activation input"));
}

void ReluOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getInput(), "activation input"));
}

void MulOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getLhs(), "product operand"));
  saved.push_back(SavedTensor::of(getRhs(), "product operand"));
}

// The gate and up projections; the SiLU's output is computed again.
void SwigluOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getGate(), "activation input"));
  saved.push_back(SavedTensor::of(getUp(), "product operand"));
}

void LogitsSumExpOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getLogits(), "logits"));
}

void CrossEntropyFromStatsOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getMax(), "logit max"));
  saved.push_back(SavedTensor::of(getSumexp(), "logit sum-exp"));
  if (getCount())
    saved.push_back(SavedTensor::of(getCount(), "global label count"));
}

void CrossEntropyOp::getSavedForBackward(Saved &saved) {
  saved.push_back(SavedTensor::of(getLogits(), "logits"));
  if (getCount())
    saved.push_back(SavedTensor::of(getCount(), "global label count"));
}

void LabelCountOp::getSavedForBackward(Saved &) {}

//===- TfmLossOps.td - the loss ops ------------------------*- tablegen -*-===//
//
// Included from TfmOps.td: the vocabulary-parallel cross-entropy in its
// pieces, the whole-vocabulary loss and the label count.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMLOSSOPS_TD
#define SEQPAR_DIALECT_TFM_IR_TFMLOSSOPS_TD

//===----------------------------------------------------------------------===//
// Vocabulary-parallel cross-entropy
//===----------------------------------------------------------------------===//

def Tfm_LogitsMaxOp : Tfm_Op<"logits_max", [Pure, Tfm_NoBackward]> {
  let summary = "maximum logit of every token";
  let description = [{
    `m[t] = max_v logits[t, v]` in f32. On logits split over the vocabulary
    the result is each rank's candidate, combined by a max all-reduce: the
    first step of Megatron's vocab-parallel cross-entropy.

    ```mlir
    %m = tfm.logits_max %logits : tensor<128x2x12800xf32> -> tensor<128x2xf32>
    ```

    **Constraints**
    - the result has the logits' shape without the last dimension, in f32.
  }];
  let arguments = (ins Tfm_FloatTensor:$logits);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$logits attr-dict `:` type($logits) `->` type($result)";
  let hasVerifier = 1;
}

def Tfm_LogitsSumExpOp : Tfm_Op<"logits_sumexp", [Pure, Tfm_Differentiable]> {
  let summary = "sum of exp(logit - max) of every token";
  let description = [{
    `se[t] = sum_v exp(logits[t, v] - max[t])` in f32, with `max` the global
    maximum. On logits split over the vocabulary the result is partial (P),
    completed by a sum all-reduce.

    ```mlir
    %se = tfm.logits_sumexp %logits, %m
        : tensor<128x2x12800xf32>, tensor<128x2xf32> -> tensor<128x2xf32>
    ```

    **Constraints**
    - `max` and the result have the logits' shape without the last
      dimension, in f32.
  }];
  let arguments = (ins Tfm_FloatTensor:$logits, RankedTensorOf<[F32]>:$max);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $logits `,` $max attr-dict `:` type($logits) `,` type($max) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_LabelLogitOp : Tfm_Op<"label_logit", [Pure, Tfm_Differentiable]> {
  let summary = "the logit of every token's label";
  let description = [{
    `z[t] = logits[t, labels[t]]` in f32, 0 for ignored labels (and any
    label outside `[0, vocab)`). On logits split over the vocabulary, a rank
    gives 0 for labels outside its range and the result is partial (P).

    ```mlir
    %z = tfm.label_logit %logits, %labels ignore_index -100
        : tensor<128x2x12800xf32>, tensor<128x2xi64> -> tensor<128x2xf32>
    ```

    **Constraints**
    - the labels and the result have the logits' shape without the last
      dimension; the result is f32.
  }];
  let arguments = (ins Tfm_FloatTensor:$logits, Tfm_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $logits `,` $labels `ignore_index` $ignore_index attr-dict `:`
    type($logits) `,` type($labels) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_CrossEntropyFromStatsOp : Tfm_Op<"cross_entropy_from_stats",
    [Pure, Tfm_Differentiable]> {
  let summary = "mean cross-entropy from per-token max, sum-exp and label logit";
  let description = [{
    `loss = mean over tokens with label != ignore_index of
    (log(sumexp[t]) + max[t] - label_logit[t])`; 0 if every label is
    ignored. The last step of the vocab-parallel cross-entropy, on complete
    (all-reduced) statistics. With `count` (the number of non-ignored labels
    of the whole batch, from `tfm.label_count` all-reduced), the sum over
    these tokens is divided by `count` instead of by their own number (0 if
    `count` is 0): this rank's share of the global mean.

    ```mlir
    %loss = tfm.cross_entropy_from_stats %m, %se, %z, %labels ignore_index -100
        : tensor<128x2xf32>, tensor<128x2xf32>, tensor<128x2xf32>,
          tensor<128x2xi64> -> tensor<f32>
    ```

    **Constraints**
    - `max`, `sumexp`, `label_logit` and `labels` have the same shape;
      `count` is an f32 scalar.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$max, RankedTensorOf<[F32]>:$sumexp,
                       RankedTensorOf<[F32]>:$label_logit,
                       Tfm_IndexTensor:$labels, Optional<Tfm_Scalar>:$count,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Tfm_Scalar:$loss);
  let assemblyFormat = [{
    $max `,` $sumexp `,` $label_logit `,` $labels (`count` $count^)?
    `ignore_index` $ignore_index attr-dict `:` type($max) `,` type($sumexp)
    `,` type($label_logit) `,` type($labels) (`,` type($count)^)? `->`
    type($loss)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

def Tfm_CrossEntropyOp : Tfm_Op<"cross_entropy", [Pure, Tfm_Differentiable,
    Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "mean token cross-entropy of logits against labels";
  let description = [{
    `loss = mean over tokens with label != ignore_index of
    (logsumexp(logits[t, :]) - logits[t, label[t]])`, computed in f32.
    Labels are already shifted (label `t` is the token after input `t`).
    If every label is ignored the loss is 0. With `count` (the number of
    non-ignored labels of the whole batch), the sum over the tokens is
    divided by `count` instead (0 if `count` is 0): sp-partition gives each
    rank of a split batch its share of the global mean, so the shares sum to
    the one-device loss whatever labels are ignored where.

    ```mlir
    %loss = tfm.cross_entropy %logits, %labels ignore_index -100
        : (tensor<128x2x50257xf32>, tensor<128x2xi64>) -> tensor<f32>
    ```

    **Constraints**
    - the labels have the logits' shape without the last (vocabulary)
      dimension;
    - the result (and `count`) is an f32 scalar (rank-0 tensor);
    - the logits may be f32, bf16 or f16: the kernel reads them as stored
      (each row widened exactly, StoragePrecisionOpInterface).
  }];
  let arguments = (ins Tfm_FloatTensor:$logits, Tfm_IndexTensor:$labels,
                       Optional<Tfm_Scalar>:$count,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Tfm_Scalar:$loss);
  let assemblyFormat = [{
    $logits `,` $labels (`count` $count^)? `ignore_index` $ignore_index
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_LabelCountOp : Tfm_Op<"label_count", [Pure, Tfm_NoBackward]> {
  let summary = "the number of labels other than ignore_index, as f32";
  let description = [{
    `count = #{t : labels[t] != ignore_index}` (exact below 2^24 tokens).
    sp-partition all-reduces it over the axes that split the tokens (dp,
    cp) and hands it to the cross-entropy as its `count`. No gradient (it
    reads integer labels only).

    ```mlir
    %n = tfm.label_count %labels ignore_index -100
        : tensor<64x2xi64> -> tensor<f32>
    ```

    **Constraints**
    - the result is an f32 scalar.
  }];
  let arguments = (ins Tfm_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Tfm_Scalar:$count);
  let assemblyFormat = [{
    $labels `ignore_index` $ignore_index attr-dict `:` type($labels) `->`
    type($count)
  }];
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMLOSSOPS_TD

//===- TfmGradOps.td - backward ops created by tfm-autodiff -*- tablegen -*-===//
//
// Included from TfmOps.td. These ops are produced by tfm-autodiff: each is the
// backward of one forward op, taking the incoming gradient (named d*) and
// what the forward op keeps for its backward.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMGRADOPS_TD
#define SEQPAR_DIALECT_TFM_IR_TFMGRADOPS_TD

class Tfm_GradOp<string mnemonic, list<Trait> traits = []>
    : Op<Tfm_Dialect, mnemonic,
         !listconcat([Seqpar_CheckedTensorSizes, Pure], traits)>;

def Tfm_LinearGradInputOp : Tfm_GradOp<"linear_grad_input",
    [DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "gradient of a linear layer with respect to its input";
  let description = [{
    `dx = dy W` for an `[out, in]` weight (`dy W^T` for `in_out`).

    ```mlir
    %dx = tfm.linear_grad_input %dy, %w
        : (tensor<16x2x64xf32>, tensor<64x32xf32>) -> tensor<16x2x32xf32>
    ```

    **Constraints**
    - the weight has rank 2; `dy`'s last dimension is its `out` features and
      the result's last dimension its `in` features; leading dimensions
      agree;
    - `dy`, the weight and the result may each be f32, bf16 or f16: read
      exactly, summed in f32, the result rounded once (as `tfm.linear`).
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$weight,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Tfm_FloatTensor:$dx);
  let assemblyFormat = [{
    $dy `,` $weight (`weight_layout` $weight_layout^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_LinearGradWeightOp : Tfm_GradOp<"linear_grad_weight",
    [DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "gradient of a linear layer with respect to its weight";
  let description = [{
    `dW = dy^T x` summed over every token (`x^T dy` for `in_out`); the
    result has the weight's shape.

    ```mlir
    %dw = tfm.linear_grad_weight %x, %dy
        : (tensor<16x2x32xf32>, tensor<16x2x64xf32>) -> tensor<64x32xf32>
    ```

    **Constraints**
    - `x` and `dy` have the same leading dimensions;
    - `x`, `dy` and the result may each be f32, bf16 or f16: read exactly,
      summed in f32, the result rounded once (as `tfm.linear`);
    - the result is `[out, in]` (`[in, out]` for `in_out`) with `in` the last
      dimension of `x` and `out` that of `dy`.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$dy,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Tfm_FloatTensor:$dweight);
  let assemblyFormat = [{
    $input `,` $dy (`weight_layout` $weight_layout^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_BiasGradOp : Tfm_GradOp<"bias_grad",
    [Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "gradient of a bias: the incoming gradient summed over tokens";
  let description = [{
    On bf16 / f16 tensors the runtime reads `dy` as stored and rounds the
    f32 sums once into the result's type (ReducesRowsAsStored).

    ```mlir
    %db = tfm.bias_grad %dy : tensor<16x2x64xf32> -> tensor<64xf32>
    ```

    **Constraints**
    - the result has rank 1 and the size of `dy`'s last dimension;
    - its element type is `dy`'s or f32 (a partial sum of bf16 / f16
      gradients, rounded after its reduction).
  }];
  let arguments = (ins Tfm_FloatTensor:$dy);
  let results = (outs Tfm_FloatTensor:$dbias);
  let assemblyFormat = "$dy attr-dict `:` type($dy) `->` type($dbias)";
  let hasVerifier = 1;
}

def Tfm_LayerNormGradOp : Tfm_GradOp<"layer_norm_grad",
    [Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "gradients of layer normalisation";
  let description = [{
    The gradients with respect to the input, the weight and the bias of
    `tfm.layer_norm` with the same `eps`, recomputing the statistics from
    the input.

    ```mlir
    %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05
        : (tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<32xf32>)
        -> (tensor<16x2x32xf32>, tensor<32xf32>, tensor<32xf32>)
    ```

    With `residual %r` (tfm-fuse-elementwise: the residual stream's
    gradient the backward adds the input gradient to), `dx` is
    `%r + (the input gradient)`, the input gradient rounded to `dx`'s type
    before the sum as a separate `tfm.add` would read it:

    ```mlir
    %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w residual %r eps 1.0e-05
        : (tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<32xf32>,
           tensor<16x2x32xf32>)
        -> (tensor<16x2x32xf32>, tensor<32xf32>, tensor<32xf32>)
    ```

    **Constraints**
    - `eps` > 0; `dy` and `x` have the same shape and element type;
    - `dx` has `x`'s shape and element type; the weight, `dw` and `db` are
      rank 1 with the size of the last dimension; the weight has `x`'s
      element type, `dw` and `db` may be f32 where it is bf16 or f16 (a
      partial sum that sp-legalize-precision keeps in f32 until it is
      reduced);
    - `residual`, where present, has `dx`'s type.
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$input,
                       Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$residual, F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$dx, Tfm_FloatTensor:$dweight,
                      Tfm_FloatTensor:$dbias);
  let assemblyFormat = [{
    $dy `,` $input `,` $weight (`residual` $residual^)? `eps` $eps attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_RmsNormGradOp : Tfm_GradOp<"rms_norm_grad",
    [Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "gradients of RMS normalisation";
  let description = [{
    ```mlir
    %dx, %dw = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06
        : (tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<32xf32>)
        -> (tensor<16x2x32xf32>, tensor<32xf32>)
    ```

    `residual %r` adds the residual stream's gradient into `dx`, as
    layer_norm_grad's does.

    **Constraints**
    - `eps` > 0; `dy` and `x` have the same shape and element type;
    - `dx` has `x`'s shape and element type; the weight and `dw` are rank 1
      with the size of the last dimension; the weight has `x`'s element
      type, `dw` may be f32 where it is bf16 or f16 (as layer_norm_grad's);
    - `residual`, where present, has `dx`'s type.
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$input,
                       Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$residual, F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$dx, Tfm_FloatTensor:$dweight);
  let assemblyFormat = [{
    $dy `,` $input `,` $weight (`residual` $residual^)? `eps` $eps attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_GeluGradOp : Tfm_GradOp<"gelu_grad", [AllTypesMatch<["dy", "input", "dx"]>,
    Seqpar_MapsElementsAsStored]> {
  let summary = "dy * gelu'(x)";
  let description = [{
    ```mlir
    %dx = tfm.gelu_grad %dy, %x approximate tanh : tensor<16x2x64xf32>
    ```

    **Constraints**
    - `dy`, `x` and the result have the same type (f32, bf16 or f16: each
      element widened, its derivative's product computed as in f32 and
      rounded once, MapsElementsAsStored).
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$input,
                       Seqpar_GeluApproximation:$approximate);
  let results = (outs Tfm_FloatTensor:$dx);
  let assemblyFormat = [{
    $dy `,` $input `approximate` $approximate attr-dict `:` type($dy)
  }];
}

def Tfm_SiluGradOp : Tfm_GradOp<"silu_grad", [AllTypesMatch<["dy", "input", "dx"]>,
    Seqpar_MapsElementsAsStored]> {
  let summary = "dy * silu'(x)";
  let description = [{
    ```mlir
    %dx = tfm.silu_grad %dy, %x : tensor<16x2x88xf32>
    ```

    **Constraints**
    - `dy`, `x` and the result have the same type (f32, bf16 or f16: each
      element widened, its derivative's product computed as in f32 and
      rounded once, MapsElementsAsStored).
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$input);
  let results = (outs Tfm_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $input attr-dict `:` type($dy)";
}

def Tfm_ReluGradOp : Tfm_GradOp<"relu_grad", [AllTypesMatch<["dy", "input", "dx"]>,
    Seqpar_MapsElementsAsStored]> {
  let summary = "dy where x > 0, else 0";
  let description = [{
    ```mlir
    %dx = tfm.relu_grad %dy, %x : tensor<16x2x64xf32>
    ```

    **Constraints**
    - `dy`, `x` and the result have the same type (f32, bf16 or f16: each
      element widened, its derivative's product computed as in f32 and
      rounded once, MapsElementsAsStored).
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$input);
  let results = (outs Tfm_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $input attr-dict `:` type($dy)";
}

def Tfm_ScaleOp : Tfm_GradOp<"scale", [SameOperandsAndResultType]> {
  let summary = "multiplies every element by a constant";
  let description = [{
    ```mlir
    %y = tfm.scale %x by 5.000000e-01 : tensor<f32>
    ```

    **Constraints**
    - the result type equals the input type.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, F64Attr:$factor);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `by` $factor attr-dict `:` type($input)";
}

def Tfm_FillOp : Tfm_GradOp<"fill"> {
  let summary = "a tensor with every element equal to a constant";
  let description = [{
    The seed of reverse mode (`1.0` for the loss) and the gradient of a
    parameter no op reads (`0.0`). With `times`, every element is `value`
    times that run-time scalar: the seed of a loss-scaled backward reads
    the step's `loss_scale` hyperparameter.

    ```mlir
    %one = tfm.fill 1.000000e+00 : tensor<f32>
    %s = tfm.hyperparameter loss_scale default 6.553600e+04
    %seed = tfm.fill 1.000000e+00 times %s : tensor<f32>
    ```

    **Constraints**
    - `times`, when present, is read by `tfm.hyperparameter loss_scale`.
  }];
  let arguments = (ins F64Attr:$value, Optional<F64>:$times);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$value (`times` $times^)? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::FloatAttr":$value), [{
      build($_builder, $_state, type, value, ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Tfm_EmbeddingGradOp : Tfm_GradOp<"embedding_grad",
    [Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "gradient of an embedding table: dy scattered to the id rows";
  let description = [{
    `dtable[v, :] = sum of dy[t, :] over tokens t with ids[t] = v`; with a
    table split over the vocabulary, only this rank's rows. Each row's
    tokens are summed in f32 in token order; on bf16 / f16 tensors the
    runtime reads `dy` as stored and rounds each sum once into the result's
    type (ReducesRowsAsStored).

    ```mlir
    %dt = tfm.embedding_grad %ids, %dy
        : (tensor<16x2xi64>, tensor<16x2x32xf32>) -> tensor<256x32xf32>
    ```

    **Constraints**
    - `dy`'s shape is the ids' shape followed by the hidden size;
    - the result has rank 2 and that hidden size;
    - its element type is `dy`'s or f32 (a partial sum of bf16 / f16
      gradients, rounded after its reduction).
  }];
  let arguments = (ins Tfm_IndexTensor:$ids, Tfm_FloatTensor:$dy);
  let results = (outs Tfm_FloatTensor:$dtable);
  let assemblyFormat = "$ids `,` $dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_QkvConcatOp : Tfm_GradOp<"qkv_concat", [Seqpar_MovesBytes]> {
  let summary = "packs q, k, v gradients back into a fused projection's";
  let description = [{
    The inverse of `tfm.qkv_split` with the same attributes; it moves
    elements (MovesBytes).

    ```mlir
    %d = tfm.qkv_concat %dq, %dk, %dv packing blocks heads 4 kv_heads 4
        head_dim 8 : tensor<16x2x32xf32>, tensor<16x2x32xf32>,
        tensor<16x2x32xf32> -> tensor<16x2x96xf32>
    ```

    **Constraints**
    - the operands and result have the shapes `tfm.qkv_split` gives its
      results and takes as input.
  }];
  let arguments = (ins Tfm_FloatTensor:$dq, Tfm_FloatTensor:$dk,
                       Tfm_FloatTensor:$dv, Tfm_QkvPacking:$packing,
                       I64Attr:$num_heads, I64Attr:$num_kv_heads,
                       I64Attr:$head_dim);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $dq `,` $dk `,` $dv `packing` $packing `heads` $num_heads `kv_heads`
    $num_kv_heads `head_dim` $head_dim attr-dict `:` type($dq) `,` type($dk)
    `,` type($dv) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_RepeatHeadsGradOp : Tfm_GradOp<"repeat_heads_grad"> {
  let summary = "sums the gradients of repeated heads";
  let description = [{
    The backward of `tfm.repeat_heads` with the same attributes.

    ```mlir
    %dk = tfm.repeat_heads_grad %d heads 2 head_dim 8 factor 2
        : tensor<16x2x32xf32> -> tensor<16x2x16xf32>
    ```

    **Constraints**
    - the input is `tfm.repeat_heads`'s result shape and the result its
      input shape.
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, I64Attr:$num_heads,
                       I64Attr:$head_dim, I64Attr:$factor);
  let results = (outs Tfm_FloatTensor:$dx);
  let assemblyFormat = [{
    $dy `heads` $num_heads `head_dim` $head_dim `factor` $factor attr-dict
    `:` type($dy) `->` type($dx)
  }];
  let hasVerifier = 1;
}

def Tfm_AttentionGradOp : Tfm_GradOp<"attention_grad",
    [Seqpar_AttendsAsStored, Seqpar_StoragePrecisionOpInterface,
     AttrSizedOperandSegments]> {
  let summary = "gradients of attention with respect to q, k and v";
  let description = [{
    The backward of `tfm.attention` with the same attributes, recomputing
    the attention probabilities (and dropout mask) from q and k. With
    `saved(%out, %lse)`, the forward's result and its `lse`
    (tfm-save-attention-stats), the probabilities are `exp(score - lse)`
    and the softmax's row term is `rowsum(dout * out)`: the forward is not
    run again. On bf16 / f16 tensors the runtime reads and writes them as
    stored, as `tfm.attention` does.

    ```mlir
    %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %v heads 4 kv_heads 2
        head_dim 8 {causal} : tensor<16x2x32xf32>, tensor<16x2x32xf32>,
        tensor<16x2x16xf32>, tensor<16x2x16xf32>
        -> tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>
    ```

    **Constraints**
    - `dout` has q's type; the results have the types of q, k and v;
    - `document_causal` needs `causal` and `positions`;
    - `saved`: `out` has q's type, `lse` is `[s, b, heads]` f32.
  }];
  let arguments = (ins Tfm_FloatTensor:$dout, Tfm_FloatTensor:$q,
                       Tfm_FloatTensor:$k, Tfm_FloatTensor:$v,
                       Optional<Tfm_IndexTensor>:$positions,
                       Optional<Tfm_FloatTensor>:$out,
                       Optional<Tfm_FloatTensor>:$lse,
                       I64Attr:$num_heads, I64Attr:$num_kv_heads,
                       I64Attr:$head_dim, UnitAttr:$causal,
                       DefaultValuedAttr<I64Attr, "0">:$rotary_dim,
                       DefaultValuedAttr<F64Attr, "10000.0">:$rotary_theta,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_rate,
                       DefaultValuedAttr<I64Attr, "0">:$dropout_stream,
                       UnitAttr:$document_causal);
  let results = (outs Tfm_FloatTensor:$dq, Tfm_FloatTensor:$dk,
                      Tfm_FloatTensor:$dv);
  let assemblyFormat = [{
    $dout `,` $q `,` $k `,` $v (`positions` $positions^)?
    (`saved` `(` $out^ `,` $lse `)`)? `heads` $num_heads
    `kv_heads` $num_kv_heads `head_dim` $head_dim attr-dict `:` type($dout)
    `,` type($q) `,` type($k) `,` type($v) (`,` type($positions)^)?
    (`saved` `(` type($out)^ `,` type($lse) `)`)? `->`
    type($dq) `,` type($dk) `,` type($dv)
  }];
  let hasVerifier = 1;
}

def Tfm_CrossEntropyGradOp : Tfm_GradOp<"cross_entropy_grad",
    [Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface]> {
  let summary = "gradient of the mean cross-entropy with respect to the logits";
  let description = [{
    `dlogits[t] = (softmax(logits[t]) - onehot(label[t])) * dloss / count`
    for non-ignored tokens, 0 for ignored ones; `count` is the operand when
    present (the forward's, a constant of the backward), else the number of
    non-ignored labels.

    ```mlir
    %d = tfm.cross_entropy_grad %logits, %labels, %dloss ignore_index -100
        : (tensor<16x2x256xf32>, tensor<16x2xi64>, tensor<f32>)
        -> tensor<16x2x256xf32>
    ```

    **Constraints**
    - the labels have the logits' shape without the last dimension;
    - `dloss` is a scalar; the result has the logits' type (f32, bf16 or
      f16, read and written as stored: each gradient rounded once from the
      f32 kernel's value).
  }];
  let arguments = (ins Tfm_FloatTensor:$logits, Tfm_IndexTensor:$labels,
                       Tfm_Scalar:$dloss, Optional<Tfm_Scalar>:$count,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Tfm_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $logits `,` $labels `,` $dloss (`count` $count^)? `ignore_index`
    $ignore_index attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_CrossEntropyFromStatsGradOp
    : Tfm_GradOp<"cross_entropy_from_stats_grad"> {
  let summary = "gradients of the loss with respect to sum-exp and label logit";
  let description = [{
    For non-ignored tokens, `dsumexp[t] = dloss / (count * sumexp[t])` and
    `dlabel_logit[t] = -dloss / count`; 0 for ignored ones (`count`: the
    operand when present, else the number of non-ignored labels). The gradient
    with respect to the max is zero (it cancels with the sum-exp's), so the
    max is not differentiated.

    ```mlir
    %dse, %dz = tfm.cross_entropy_from_stats_grad %se, %labels, %dloss
        ignore_index -100 : tensor<16x2xf32>, tensor<16x2xi64>, tensor<f32>
        -> tensor<16x2xf32>, tensor<16x2xf32>
    ```

    **Constraints**
    - `sumexp`, the labels and both results have the same shape; `dloss` is
      a scalar.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$sumexp, Tfm_IndexTensor:$labels,
                       Tfm_Scalar:$dloss, Optional<Tfm_Scalar>:$count,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs RankedTensorOf<[F32]>:$dsumexp,
                      RankedTensorOf<[F32]>:$dlabel_logit);
  let assemblyFormat = [{
    $sumexp `,` $labels `,` $dloss (`count` $count^)? `ignore_index`
    $ignore_index attr-dict `:` type($sumexp) `,` type($labels) `,`
    type($dloss) (`,` type($count)^)? `->` type($dsumexp) `,`
    type($dlabel_logit)
  }];
  let hasVerifier = 1;
}

def Tfm_LogitsSumExpGradOp : Tfm_GradOp<"logits_sumexp_grad"> {
  let summary = "gradient of sum-exp with respect to the logits";
  let description = [{
    `dlogits[t, v] = exp(logits[t, v] - max[t]) * dsumexp[t]`.

    ```mlir
    %d = tfm.logits_sumexp_grad %logits, %m, %dse : tensor<16x2x128xf32>,
        tensor<16x2xf32>, tensor<16x2xf32> -> tensor<16x2x128xf32>
    ```

    **Constraints**
    - `max` and `dsumexp` have the logits' shape without the last
      dimension; the result has the logits' type.
  }];
  let arguments = (ins Tfm_FloatTensor:$logits, RankedTensorOf<[F32]>:$max,
                       RankedTensorOf<[F32]>:$dsumexp);
  let results = (outs Tfm_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $logits `,` $max `,` $dsumexp attr-dict `:` type($logits) `,` type($max)
    `,` type($dsumexp) `->` type($dlogits)
  }];
  let hasVerifier = 1;
}

def Tfm_LabelLogitGradOp : Tfm_GradOp<"label_logit_grad"> {
  let summary = "gradient of the label logit with respect to the logits";
  let description = [{
    `dlogits[t, labels[t]] = dz[t]`, zeros elsewhere (and for ignored or
    non-local labels when the vocabulary is split).

    ```mlir
    %d = tfm.label_logit_grad %labels, %dz ignore_index -100
        : tensor<16x2xi64>, tensor<16x2xf32> -> tensor<16x2x128xf32>
    ```

    **Constraints**
    - `dz` has the labels' shape; the result has that shape followed by the
      (local) vocabulary.
  }];
  let arguments = (ins Tfm_IndexTensor:$labels, RankedTensorOf<[F32]>:$dz,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Tfm_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $labels `,` $dz `ignore_index` $ignore_index attr-dict `:` type($labels)
    `,` type($dz) `->` type($dlogits)
  }];
  let hasVerifier = 1;
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMGRADOPS_TD

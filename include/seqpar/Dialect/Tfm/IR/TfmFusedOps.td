//===- TfmFusedOps.td - ops the fusion passes create ------*- tablegen -*-===//
//
// Included from TfmOps.td. Each op computes what a short chain of tfm ops
// computes, with the same rounding, in one pass over memory. They are made by
// tfm-fuse-elementwise and tfm-fuse-epilogues after autodiff and precision
// legalization (they are not differentiable) and implemented by every runtime
// backend.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMFUSEDOPS_TD
#define SEQPAR_DIALECT_TFM_IR_TFMFUSEDOPS_TD

def Tfm_DropoutAddOp : Op<Tfm_Dialect, "dropout_add", [
    Seqpar_CheckedTensorSizes, SameOperandsAndResultType,
    Seqpar_MapsElementsAsStored,
    DeclareOpInterfaceMethods<Tfm_SavedForBackwardOpInterface>]> {
  let summary = "residual + dropout(x), fused";
  let description = [{
    `tfm.add %residual, (tfm.dropout %x rate R stream S)` in one pass: the
    dropout's mask, scale and rounding (a kept element scaled in f32 and
    rounded to the element type), then the add's (widened, added in f32,
    rounded once), so its result equals the two ops' bit for bit. The
    dropout's intermediate tensor is never stored. Made by
    tfm-fuse-elementwise. For the memory report it keeps what tfm.dropout
    keeps (the paper's mask byte per element).

    ```mlir
    %y = tfm.dropout_add %x, %residual rate 1.0e-01 stream 3 : tensor<128x2x768xf32>
    ```

    **Constraints**
    - 0 <= `rate` < 1;
    - `stream` >= 0;
    - x, residual and the result have one type, of rank at most 3.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$residual,
                       F64Attr:$rate,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$stream);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $residual `rate` $rate `stream` $stream attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def Tfm_LinearGeluOp : Tfm_Op<"linear_gelu", [Pure,
    DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "gelu(x W + b), fused: the GEMM with GELU as its epilogue";
  let description = [{
    `tfm.gelu (tfm.linear %x, %w, %b)` in one call: `pre` is the linear's
    result (products summed in f32 onto the bias, rounded once to its type)
    and `result` is GELU of `pre` (widened, mapped in f32, rounded once), so
    on the cpu target both equal the two ops' bit for bit. `pre` is what
    the GELU's backward reads; where nothing reads it (inference) the
    runtime does not write it. Made by tfm-fuse-epilogues.

    On the cuda target a tanh GELU of one 16-bit type (or f32) is cuBLASLt's
    GELU epilogue (CUBLASLT_EPILOGUE_GELU_AUX_BIAS): the bias and the GELU
    are applied to the f32 accumulator in the GEMM's own pass over its
    output, `pre` written as the epilogue's auxiliary output. The GELU there
    reads the unrounded sum, so `result` may differ from the two ops' by one
    rounding of the element type. Other cases run the GEMM and the GELU
    kernel back to back (the two ops' bits).

    ```mlir
    %pre, %y = tfm.linear_gelu %x, %w, %b weight_layout in_out
        approximate tanh
        : (tensor<128x2x768xbf16>, tensor<768x3072xbf16>, tensor<3072xbf16>)
        -> (tensor<128x2x3072xbf16>, tensor<128x2x3072xbf16>)
    ```

    **Constraints**
    - input, weight and bias as tfm.linear's;
    - `pre` has tfm.linear's result shape, and `result` the type of `pre`.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout,
                       Seqpar_GeluApproximation:$approximate);
  let results = (outs Tfm_FloatTensor:$pre, Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`weight_layout` $weight_layout^)?
    `approximate` $approximate attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_LinearGeluGradOp : Tfm_GradOp<"linear_gelu_grad",
    [DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "gelu'(pre) * (dy W), fused, with the bias gradient";
  let description = [{
    `tfm.gelu_grad (tfm.linear_grad_input %dy, %w), %pre` in one call, and,
    where a `tfm.bias_grad` of that gradient follows, the bias gradient too
    (`dbias`): the backward of `tfm.linear_gelu` seen from the next linear
    (GPT-2's MLP: the second GEMM's input gradient is the GELU's dy, the
    GELU's dx is the first GEMM's dy and its bias gradient). On the cpu
    target its results equal the two (or three) ops' bit for bit: the
    input gradient rounded once to dx's type, the GELU's gradient of it
    rounded once, the bias gradient (f32 column sums) rounded once to
    dbias's type. Made by tfm-fuse-epilogues.

    On the cuda target, for a tanh GELU with dy, w, pre, dx (and dbias) of
    one type, it is one cublasLtMatmul with CUBLASLT_EPILOGUE_DGELU_BGRAD
    (DGELU without dbias): the GELU's derivative at pre multiplies the f32
    sum as the GEMM writes dx, and the bias gradient is summed in the same
    pass. The GELU's gradient there reads the unrounded product, so dx and
    dbias may differ from the ops' by a rounding of the element type. Other
    cases make the ops' calls.

    ```mlir
    %dx, %db = tfm.linear_gelu_grad %dy, %w, %pre weight_layout in_out
        approximate tanh
        : (tensor<128x2x768xbf16>, tensor<3072x768xbf16>,
           tensor<128x2x3072xbf16>)
        -> (tensor<128x2x3072xbf16>, tensor<3072xbf16>)
    ```

    **Constraints**
    - dy and the weight as tfm.linear_grad_input's; `pre` has its result's
      shape, and `dx` the type of `pre`;
    - `dbias`, if present, has shape `[in]` and dx's element type or f32.
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$weight,
                       Tfm_FloatTensor:$pre,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout,
                       Seqpar_GeluApproximation:$approximate);
  let results = (outs Tfm_FloatTensor:$dx, Optional<Tfm_FloatTensor>:$dbias);
  let assemblyFormat = [{
    $dy `,` $weight `,` $pre (`weight_layout` $weight_layout^)?
    `approximate` $approximate attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_LinearGradWeightBiasOp : Tfm_GradOp<"linear_grad_weight_bias",
    [DeclareOpInterfaceMethods<Seqpar_StoragePrecisionOpInterface>]> {
  let summary = "a linear's weight gradient and its bias gradient, fused";
  let description = [{
    `tfm.linear_grad_weight %x, %dy` and `tfm.bias_grad %dy` in one call:
    the weight gradient and the bias gradient read the same output gradient
    (a linear with a bias, seen from its backward). On the cpu target its
    results equal the two ops' bit for bit: the weight gradient (f32 sums)
    rounded once to dweight's type, the bias gradient (f32 column sums)
    rounded once to dbias's. Made by tfm-fuse-epilogues.

    On the cuda target, with x, dy, dweight and dbias of one type, it is
    one cublasLtMatmul whose epilogue sums the bias gradient from dy as the
    GEMM reads it (CUBLASLT_EPILOGUE_BGRADB, or BGRADA for `in_out`), so dy
    is read once; the sums' order differs from the ops' kernels, so dweight
    and dbias may differ from theirs by a rounding of the element type.
    Other cases make the ops' calls.

    ```mlir
    %dw, %db = tfm.linear_grad_weight_bias %x, %dy weight_layout in_out
        : (tensor<128x2x768xbf16>, tensor<128x2x2304xbf16>)
        -> (tensor<768x2304xbf16>, tensor<2304xbf16>)
    ```

    **Constraints**
    - x, dy and dweight as tfm.linear_grad_weight's;
    - dbias as tfm.bias_grad's of dy: shape `[out]`, dy's element type or
      f32.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$dy,
                       DefaultValuedAttr<Seqpar_WeightLayout,
                         "::seqpar::WeightLayout::out_in">:$weight_layout);
  let results = (outs Tfm_FloatTensor:$dweight, Tfm_FloatTensor:$dbias);
  let assemblyFormat = [{
    $input `,` $dy (`weight_layout` $weight_layout^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_SwigluOp : Tfm_Op<"swiglu", [Pure,
    AllTypesMatch<["gate", "up", "result"]>, Seqpar_MapsElementsAsStored]> {
  let summary = "silu(gate) * up, fused (the SwiGLU MLP's product)";
  let description = [{
    `tfm.mul (tfm.silu %gate), %up` in one pass: the SiLU of each gate
    element rounded once to the element type (as tfm.silu's result), then
    its product with `up` rounded once (as tfm.mul's), so on the cpu target
    its result equals the two ops' bit for bit (on cuda, the two kernels'
    formulas in one kernel: within an ulp where nvcc contracts differently).
    The SiLU's tensor is never stored; the backward (tfm.swiglu_grad)
    computes it again from `gate`.
    Made by tfm-fuse-elementwise. For the memory report it keeps `gate` and
    `up`.

    ```mlir
    %h = tfm.swiglu %gate, %up : tensor<128x2x8192xbf16>
    ```

    **Constraints**
    - `gate`, `up` and the result have one type.
  }];
  let arguments = (ins Tfm_FloatTensor:$gate, Tfm_FloatTensor:$up);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
}

def Tfm_SwigluGradOp : Tfm_GradOp<"swiglu_grad", [
    AllTypesMatch<["dy", "gate", "up", "dgate", "dup"]>,
    Seqpar_MapsElementsAsStored]> {
  let summary = "the gradients of silu(gate) * up, fused";
  let description = [{
    The backward of `tfm.swiglu` (or of `tfm.mul (tfm.silu %gate), %up`) in
    one pass: `dgate = tfm.silu_grad (tfm.mul %dy, %up), %gate` and
    `dup = tfm.mul %dy, (tfm.silu %gate)`, each intermediate rounded once to
    the element type as those ops round it, so on the cpu target both
    results equal the ops' bit for bit (on cuda within an ulp, as
    `tfm.swiglu`'s). It reads `gate` and `up`, not the SiLU's output, which
    the forward then need not keep. Made by tfm-fuse-elementwise.

    ```mlir
    %dgate, %dup = tfm.swiglu_grad %dy, %gate, %up : tensor<128x2x8192xbf16>
    ```

    **Constraints**
    - `dy`, `gate`, `up` and both results have one type.
  }];
  let arguments = (ins Tfm_FloatTensor:$dy, Tfm_FloatTensor:$gate,
                       Tfm_FloatTensor:$up);
  let results = (outs Tfm_FloatTensor:$dgate, Tfm_FloatTensor:$dup);
  let assemblyFormat = "$dy `,` $gate `,` $up attr-dict `:` type($dy)";
}

class Tfm_AddNormOp<string mnemonic> : Tfm_Op<mnemonic, [Pure,
    AllTypesMatch<["lhs", "rhs", "sum", "result"]>,
    Seqpar_ReducesRowsAsStored, Seqpar_StoragePrecisionOpInterface,
    DeclareOpInterfaceMethods<Tfm_SavedForBackwardOpInterface>]> {
  let hasVerifier = 1;
}

def Tfm_AddLayerNormOp : Tfm_AddNormOp<"add_layer_norm"> {
  let summary = "lhs + rhs and its layer norm, fused (the residual stream)";
  let description = [{
    `%sum = tfm.add %lhs, %rhs` and `tfm.layer_norm %sum, %w, %b` in one
    pass over each row: `sum` is the add's (widened, added in f32, rounded
    once to its type) and `result` the norm of `sum` as stored (the row
    read back from registers, not from memory), so both equal the two ops'
    bit for bit. A pre-norm block's residual sum is read by the next
    residual add and the norm's backward, so `sum` is always written.

    With `dropout R stream S`, `sum` is `tfm.dropout_add %lhs, %rhs rate R
    stream S`'s: `lhs` dropped out (the same mask, scaled in f32 and
    rounded to the element type) and added to `rhs` (GPT-2's residual
    stream with dropout).

    Made by tfm-fuse-elementwise. For the memory report it keeps what
    tfm.layer_norm keeps (its input, `sum`) and, with dropout, what
    tfm.dropout keeps.

    ```mlir
    %h, %y = tfm.add_layer_norm %attn, %x, %w, %b dropout 1.0e-01 stream 3
        eps 1.0e-05
        : (tensor<128x2x768xbf16>, tensor<128x2x768xbf16>, tensor<768xbf16>,
           tensor<768xbf16>) -> (tensor<128x2x768xbf16>, tensor<128x2x768xbf16>)
    ```

    **Constraints**
    - `lhs`, `rhs`, `sum` and `result` have one type;
    - `eps` > 0; the weight (and bias, if present) as tfm.layer_norm's;
    - with dropout, 0 <= `dropout` < 1, `stream` >= 0 and a rank of at
      most 3 (as tfm.dropout_add).
  }];
  let arguments = (ins Tfm_FloatTensor:$lhs, Tfm_FloatTensor:$rhs,
                       Tfm_FloatTensor:$weight, Optional<Tfm_FloatTensor>:$bias,
                       OptionalAttr<F64Attr>:$dropout,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$stream,
                       F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$sum, Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $weight (`,` $bias^)?
    (`dropout` $dropout^ `stream` $stream)? `eps` $eps attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tfm_AddRmsNormOp : Tfm_AddNormOp<"add_rms_norm"> {
  let summary = "lhs + rhs and its RMS norm, fused (the residual stream)";
  let description = [{
    `%sum = tfm.add %lhs, %rhs` and `tfm.rms_norm %sum, %w` in one pass
    over each row, bit for bit the two ops' (as tfm.add_layer_norm; with
    `dropout R stream S`, the sum is `tfm.dropout_add %lhs, %rhs`'s). Made
    by tfm-fuse-elementwise.

    ```mlir
    %h, %y = tfm.add_rms_norm %x, %attn, %w eps 1.0e-05
        : (tensor<128x2x2048xbf16>, tensor<128x2x2048xbf16>, tensor<2048xbf16>)
        -> (tensor<128x2x2048xbf16>, tensor<128x2x2048xbf16>)
    ```

    **Constraints**
    - `lhs`, `rhs`, `sum` and `result` have one type;
    - `eps` > 0; the weight as tfm.rms_norm's;
    - with dropout, as tfm.add_layer_norm's.
  }];
  let arguments = (ins Tfm_FloatTensor:$lhs, Tfm_FloatTensor:$rhs,
                       Tfm_FloatTensor:$weight,
                       OptionalAttr<F64Attr>:$dropout,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$stream,
                       F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$sum, Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $weight (`dropout` $dropout^ `stream` $stream)?
    `eps` $eps attr-dict `:` functional-type(operands, results)
  }];
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMFUSEDOPS_TD

//===- Passes.td - tfm passes ------------------------------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_TD
#define SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Differentiation
//===----------------------------------------------------------------------===//

def TfmAutodiffPass : Pass<"tfm-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation of @forward into @train_step";
  let description = [{
    Replaces `@forward(input_ids, labels) -> loss` by
    `@train_step(input_ids, labels) -> (loss, grad...)`: the forward ops,
    then the backward of each op in reverse order (tfm's backward ops, and
    for every dist op its transpose: all_gather <-> reduce_scatter,
    local_slice -> all_gather, all_reduce sum -> identity, all_reduce mean
    -> a scale), then one gradient per parameter in declaration order, each
    result marked `tfm.grad_of = @param`. Values with several uses sum their
    gradients, so a tied parameter read twice accumulates both.

    Gradients have layouts: a partial value's gradient is replicated;
    partial contributions to a replicated value's gradient are all-reduced
    when consumed, or reduce-scattered by the transpose of an all_gather
    (the backward of sequence parallelism). Parameter gradients are
    returned as the layouts make them: a norm weight that saw sequence
    shards gets a partial gradient, which sp-verify rejects until
    sp-sync-grads reduces it. Dropout's backward regenerates its mask from
    the counter-based generator; attention's backward recomputes its
    probabilities. The seed of reverse mode (`tfm.fill 1.0`) carries the
    unit attribute `tfm.backward_begins`: the ops before it are the forward.
    The pass checks that the backward reads only forward values some op
    declares it keeps (SavedForBackwardOpInterface), the declaration the
    memory report counts.
  }];
  let dependentDialects = ["::seqpar::dist::DistDialect"];
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

def TfmEvalStepPass : Pass<"tfm-eval-step", "::mlir::ModuleOp"> {
  let summary = "Copies the forward into @eval_step: the loss in evaluation "
                "mode (no dropout), for validation";
  let description = [{
    Runs on the partitioned forward before tfm-autodiff (which consumes
    it), after tfm-master-weights (so that the copy reads the parameters
    the train step updates, as it stores them). Each function marked
    `tfm.forward` (one, or one per pipeline stage) gets a copy marked
    `tfm.eval_step` instead, named `@eval_step` (`@eval_step_stage<k>`),
    in which dropout is off, as in PyTorch's `model.eval()`: every
    `tfm.dropout` is its input, and attention's (and ring attention's)
    `dropout_rate` is 0. A pipeline stage's copy sums its loss over the
    pipeline axis (the stages before the last return zero), as the train
    step's does. The train step's passes leave the copy alone; the planner
    places its buffers in the same arena and convert-sp-to-runtime exports
    it as `seqpar_eval` with `seqpar_step`'s signature: a training
    program's validation runs it, reading the training's parameters and
    writing nothing but the arena and the loss.

    ```mlir
    func.func @eval_step(%ids: tensor<64x8xi64>, %labels: tensor<64x8xi64>)
        -> tensor<f32> attributes {tfm.eval_step} { ... }
    ```

    A module that has an `@eval_step` already is an error, as is one with no
    `tfm.forward`.
  }];
  let dependentDialects = ["::seqpar::dist::DistDialect"];
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

def TfmPrecisionPass : Pass<"tfm-precision", "::mlir::ModuleOp"> {
  let summary = "Sets the model's precision: parameters and activations in "
                "bf16, f16 or f32";
  let description = [{
    Runs on the model as sp-import writes it, before sp-partition. Every
    floating-point `tfm.param`, every floating-point result of rank >= 1
    in the module's functions (activations, weights read), and the
    function signatures take the element type `precision` names; rank-0
    results (the loss) stay f32, as the ops that compute in fp32
    (statistics of norms, softmax, cross-entropy) do inside. The module
    records it as `tfm.precision`. Importing with `sp-import --dtype bf16`
    gives the same module. What each op computes in is the runtime's:
    storage is the precision, arithmetic f32 (sp-legalize-precision).
  }];
  let options = [
    Option<"precision", "precision", "::seqpar::Precision",
           "::seqpar::Precision::bf16",
           "bf16, fp16 or fp32 (imported: as it is)",
           "::seqpar::precisionValues()">,
  ];
}

def TfmMasterWeightsPass : Pass<"tfm-master-weights", "::mlir::ModuleOp"> {
  let summary = "fp32 master weights for a bf16 / f16 model, read through a "
                "conversion at each use";
  let description = [{
    Runs on the (partitioned) forward before tfm-autodiff. Every bf16 or
    f16 `tfm.param` becomes f32, the weights the optimizer updates and
    checkpoints save; each use of a read of it converts the read to the
    model's precision (`tfm.convert`, one per use), so the forward computes
    in the model's precision and tfm-autodiff returns each parameter's
    gradient in f32: each use's contribution converted to f32, then summed
    (a tied embedding's two uses), reduced and applied in f32. The module
    records its precision (`tfm.precision`); with f16 it also asks for
    dynamic loss scaling (`tfm.loss_scaling`: tfm-autodiff seeds the
    backward with the step's `loss_scale` hyperparameter, sp-optimizer
    divides it out in the clip scale), as fp16's range needs. A module of
    f32 parameters is left as it is.
  }];
  let options = [
    Option<"lossScaling", "loss-scaling", "::seqpar::LossScaling",
           "::seqpar::LossScaling::automatic",
           "Dynamic loss scaling: auto (with f16), on or off",
           "::seqpar::lossScalingValues()">,
  ];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def TfmFuseElementwisePass : Pass<"tfm-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Fuses each dropout with the residual add it feeds "
                "(tfm.dropout_add), SwiGLU's SiLU with its product, "
                "forward and backward (tfm.swiglu, tfm.swiglu_grad), each "
                "residual add with the norm of its sum (tfm.add_layer_norm, "
                "tfm.add_rms_norm), and each norm's backward with the "
                "residual gradient's add";
  let description = [{
    Runs after tfm-autodiff and sp-legalize-precision, on every function.
    Each fused op rounds as the ops it replaces did, so the program computes
    the same bits with fewer passes over memory and fewer stored tensors.

    - Dropout + residual add: each `tfm.dropout` whose only use is one
      operand of a `tfm.add` becomes, with that add, one
      `tfm.dropout_add %x, %residual` (the add's other operand). The fused
      op draws the same mask; the dropout's tensor is never stored.
    - SwiGLU backward: each `tfm.silu_grad` whose dy is a `tfm.mul %dy, %up`
      read by it alone becomes, with that product and a
      `tfm.mul %dy, (tfm.silu %gate)` of the same dy (the gradient of `up`),
      one `tfm.swiglu_grad %dy, %gate, %up`.
    - SwiGLU forward, after the backward's: each `tfm.silu` whose only use
      is one operand of a `tfm.mul` becomes, with it, one
      `tfm.swiglu %gate, %up`. Once the backward is fused nothing reads the
      SiLU's output, which the forward then no longer keeps (Llama's MLP:
      one tensor of the intermediate size per layer).
    - Residual sum + norm, after the dropouts': each `tfm.layer_norm` or
      `tfm.rms_norm` whose input is a `tfm.add` or `tfm.dropout_add` of its
      context (not a gradient contribution) becomes, with it, one
      `tfm.add_layer_norm` or `tfm.add_rms_norm` (with the dropout's rate
      and stream) whose `sum` replaces the add's result: the sum is written
      once and not read back (5 tensor passes become 4). It goes at the add
      where the norm's weight and bias are defined before it, else at the
      norm where nothing reads the sum before the norm; otherwise the two
      stay.
    - Norm backward + residual gradient: each `tfm.layer_norm_grad` or
      `tfm.rms_norm_grad` whose input gradient `dx` is read alone by a
      `tfm.add` with another gradient defined before it (the residual
      stream's gradient, which the backward accumulates) takes that
      gradient as its `residual` and its `dx` replaces the add's result:
      one pass writes the sum where two wrote and read the input gradient
      (6 tensor passes become 4). The op rounds its input gradient to `dx`'s
      type before the sum, as the add read it.

    ```mlir
    %d = tfm.dropout %x rate 1.0e-01 stream 3 : tensor<8x2x32xf32>
    %y = tfm.add %r, %d : tensor<8x2x32xf32>
    %s = tfm.silu %g : tensor<8x2x88xf32>
    %h = tfm.mul %s, %u : tensor<8x2x88xf32>
    // ... backward, %dh the gradient of %h:
    %m = tfm.mul %dh, %u : tensor<8x2x88xf32>
    %dg = tfm.silu_grad %m, %g : tensor<8x2x88xf32>
    %du = tfm.mul %dh, %s : tensor<8x2x88xf32>
    // becomes
    %y = tfm.dropout_add %x, %r rate 1.0e-01 stream 3 : tensor<8x2x32xf32>
    %h = tfm.swiglu %g, %u : tensor<8x2x88xf32>
    %dg, %du = tfm.swiglu_grad %dh, %g, %u : tensor<8x2x88xf32>
    ```

    and, in the backward,

    ```mlir
    %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : ...
    %sum = tfm.add %dres, %dx : tensor<8x2x32xf32>
    // becomes
    %sum, %dw, %db = tfm.layer_norm_grad %dy, %x, %w residual %dres eps 1.0e-05 : ...
    ```

    Left alone: a dropout or SiLU with other uses (its tensor is needed), a
    dropout of rank above 3, a product read by more than the SiLU's
    gradient, a norm's input gradient with other uses or added to a value
    defined after the norm's backward, and ops of one pattern that carry
    different discardable attributes (another micro-batch, a recomputed op,
    a gradient contribution; a norm's backward may carry its weight
    gradients' tags): the fused op keeps the first op's.
  }];
}

def TfmFuseEpiloguesPass : Pass<"tfm-fuse-epilogues", "::mlir::ModuleOp"> {
  let summary = "Fuses each GELU with the GEMM that produces its input, "
                "each GELU's gradient with the GEMM producing its dy, and "
                "each bias gradient with the weight gradient of its dy "
                "(tfm.linear_gelu, dist.all_gather_matmul_gelu, "
                "tfm.linear_gelu_grad, tfm.linear_grad_weight_bias)";
  let description = [{
    Runs after tfm-autodiff and sp-legalize-precision, on every function.

    - Forward: each `tfm.gelu` whose input is a `tfm.linear`'s result
      becomes, with that linear, one `tfm.linear_gelu` (at the linear)
      whose `pre` result replaces the linear's (what the GELU's backward
      and any other reader read) and whose `result` replaces the GELU's.
      Under SP with `--fuse-chunks` the GEMM before the GELU is a
      `dist.all_gather_matmul` (sp-fuse-collective-matmul's): the two become
      one `dist.all_gather_matmul_gelu` the same way, each gathered chunk's
      GEMM applying the GELU to its rows.
    - Backward: each `tfm.gelu_grad` whose dy is a `tfm.linear_grad_input`'s
      result read by it alone becomes, with it, one `tfm.linear_gelu_grad`
      (at the GELU's gradient); a `tfm.bias_grad` of its result joins as the
      fused op's `dbias` (and its gradient tag, `tfm.contributes`, with it).
    - Then each `tfm.linear_grad_weight` with a `tfm.bias_grad` of its dy
      (the bias gradients left: those of a GELU's gradient are in its
      `tfm.linear_gelu_grad`) becomes one `tfm.linear_grad_weight_bias`, at
      the earlier of the two, each result keeping its gradient tag. A bias
      gradient joins one weight gradient. Under SP a row-parallel linear's
      bias gradient reads this rank's rows while its weight gradient reads
      the gathered ones, and a column-parallel one's weight gradient is a
      `dist.all_gather_matmul_grad_weight` with `--fuse-chunks`: those stay
      apart.

    On the cpu target the fused ops compute the same bits as the ops; on
    the cuda target a tanh GELU becomes cuBLASLt's GELU epilogue
    (GELU_AUX_BIAS) and the gradient its DGELU_BGRAD epilogue: the bias,
    the GELU (or its derivative) and the bias gradient are applied in the
    GEMM's own pass over its output (no separate reads and writes of the
    4h-wide activation or its gradient), at one rounding less (see the
    ops); a weight gradient's bias gradient is summed by its GEMM's
    BGRADB (BGRADA) epilogue as it reads dy.

    ```mlir
    %h = tfm.linear %x, %w, %b weight_layout in_out : (...) -> tensor<8x2x128xbf16>
    %y = tfm.gelu %h approximate tanh : tensor<8x2x128xbf16>
    // becomes
    %h, %y = tfm.linear_gelu %x, %w, %b weight_layout in_out approximate tanh
        : (...) -> (tensor<8x2x128xbf16>, tensor<8x2x128xbf16>)

    %da = tfm.linear_grad_input %dy, %w2 weight_layout in_out : (...) -> tensor<8x2x128xbf16>
    %dh = tfm.gelu_grad %da, %h approximate tanh : tensor<8x2x128xbf16>
    %db = tfm.bias_grad %dh : tensor<8x2x128xbf16> -> tensor<128xbf16>
    // becomes
    %dh, %db = tfm.linear_gelu_grad %dy, %w2, %h weight_layout in_out
        approximate tanh : (...) -> (tensor<8x2x128xbf16>, tensor<128xbf16>)

    %dw = tfm.linear_grad_weight %x, %dy weight_layout in_out : (...) -> tensor<32x96xbf16>
    %db = tfm.bias_grad %dy : tensor<8x2x96xbf16> -> tensor<96xbf16>
    // becomes
    %dw, %db = tfm.linear_grad_weight_bias %x, %dy weight_layout in_out
        : (...) -> (tensor<32x96xbf16>, tensor<96xbf16>)
    ```

    Left alone: a GELU of anything but a linear's result (an all-gathered
    GEMM of sequence parallelism with `--fuse-chunks`, an f32 copy of a
    bf16 GEMM's result), an input gradient read by more than the GELU's
    gradient, ops in different blocks, and ops whose discardable attributes
    differ (another micro-batch, a recomputed op).
  }];
}

def TfmSaveAttentionStatsPass
    : Pass<"tfm-save-attention-stats", "::mlir::ModuleOp"> {
  let summary = "Gives each attention's backward the forward's result and "
                "softmax statistics instead of running the forward again";
  let description = [{
    Runs after tfm-autodiff (and sp-recompute, sp-legalize-precision), on
    every function. Each `tfm.attention_grad` without `saved` whose forward
    is found gets it: a `tfm.attention` that dominates it, with its
    attributes, and queries, keys, values and positions that are the same
    values or the same pure computation of the same data (context
    parallelism's backward gathers k, v and positions again, and converts
    them again where the attention computes in f32; the backward recomputes
    position ids). That attention gains the `lse` result
    (`[s, b, heads]` f32, 4 bytes per query row and head, kept until the
    backward), and the gradient reads its result and `lse`:

    ```mlir
    %o = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal}
        : tensor<16x2x32xbf16>, tensor<16x2x16xbf16>, tensor<16x2x16xbf16>
        -> tensor<16x2x32xbf16>
    %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %v heads 4 ...
    // becomes
    %o, %lse = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8
        {causal} : ... -> tensor<16x2x32xbf16>, tensor<16x2x4xf32>
    %dq, %dk, %dv = tfm.attention_grad %do, %q, %k, %v saved(%o, %lse)
        heads 4 ... : ..., tensor<16x2x16xbf16> saved(tensor<16x2x32xbf16>,
        tensor<16x2x4xf32>) -> ...
    ```

    The backward then computes the probabilities as `exp(score - lse)`
    and the softmax's row term as `rowsum(dout * out)` (on cuDNN: its
    backward given O and the statistics): the forward's two GEMMs are not
    run again. Of several such forwards the last one before the backward
    is found: under sp-recompute the recomputed forward, not the one whose
    result recompute chose not to keep. Left alone, recomputing the forward: a
    gradient whose forward is not found, and one whose forward's result is
    only narrowed (an attention computing on f32 copies of bf16 / f16
    tensors: keeping its f32 result would cost memory the step does not
    spend now).
  }];
}

#endif // SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_TD

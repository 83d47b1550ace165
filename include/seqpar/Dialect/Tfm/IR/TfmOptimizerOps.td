//===- TfmOptimizerOps.td - the optimizer step in the IR ----*- tablegen -*-===//
//
// Included from TfmOps.td. Produced by sp-optimizer: the gradient norm and
// the parameter updates of a train step. The updates write the parameters
// (and the optimizer state the runtime keeps for each parameter) in place.
// Their hyperparameters are inputs of the step (tfm.hyperparameter), not
// attributes: the runtime sets them per step (a learning-rate schedule).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMOPTIMIZEROPS_TD
#define SEQPAR_DIALECT_TFM_IR_TFMOPTIMIZEROPS_TD

include "mlir/IR/OpAsmInterface.td"

def Tfm_HyperparameterOp : Op<Tfm_Dialect, "hyperparameter", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a hyperparameter of the optimizer, set by the runtime per step";
  let description = [{
    The value of one optimizer hyperparameter for the step being run: an
    input of the step like its token ids, set by the runtime before each
    step (the program's flags and its learning-rate schedule). `default` is
    the value given at compile time (sp-optimizer's options, `sp-compile
    --lr` etc.): the lowering records it in the model description, and the
    runtime uses it when no flag overrides it. The result is a host scalar
    (f64), not a tensor: it is passed to the kernels as an argument.

    ```mlir
    %lr = tfm.hyperparameter lr default 1.000000e-03
    tfm.sgd_update @w, %g scale %s lr %lr weight_decay %wd
        : tensor<8x8xf32>, tensor<f32>
    ```

    **Constraints**
    - `default` is a value the hyperparameter may take: `lr` and `eps`
      > 0, `beta1` and `beta2` in [0, 1), `weight_decay` and `grad_clip`
      >= 0;
    - a block reads each hyperparameter at most once.
  }];
  let arguments = (ins Tfm_HyperparameterKind:$kind, F64Attr:$default_value);
  let results = (outs F64:$result);
  let assemblyFormat = "$kind `default` $default_value attr-dict";
  let hasVerifier = 1;
}

def Tfm_SumSquaresOp : Tfm_GradOp<"sum_squares"> {
  let summary = "the sum of the squares of the elements of one or more tensors, in f32";
  let description = [{
    Each input's sum of squares (accumulated in double, rounded to f32),
    then those f32 sums added in operand order: one op gives the bits of a
    chain of one-input sums and f32 adds in that order, and a runtime
    computes every input's sum in one pass over the list (a multi-tensor
    reduction, as PyTorch's foreach norm), not one kernel per gradient and
    one per add. sp-optimizer makes one per layout of the gradients.

    On tensors split over a mesh axis the result is this rank's part of the
    sum (partial over that axis); on replicated ones, the whole sum. The
    inputs of one op are all split, or all replicated, over each axis (a
    mix would count the replicated ones once per rank).

    ```mlir
    %s = tfm.sum_squares %g, %h
        : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>,
          tensor<32xf32, #dist.layout<@mesh, tp = S(0)>>
        -> tensor<f32, #dist.layout<@mesh, tp = P>>
    ```

    **Constraints**
    - at least one input;
    - the result is an f32 scalar.
  }];
  let arguments = (ins Variadic<Tfm_FloatTensor>:$inputs);
  let results = (outs 0DTensorOf<[F32]>:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def Tfm_ClipScaleOp : Tfm_GradOp<"clip_scale"> {
  let summary = "the global gradient norm and the factor that clips it";
  let description = [{
    From the sum of squares of every gradient element: `norm =
    sqrt(sum_squares)` and, as torch.nn.utils.clip_grad_norm_, `scale =
    min(1, max_norm / (norm + 1e-6))`; `max_norm = 0` disables clipping
    (scale 1). `max_norm` is the step's `grad_clip` hyperparameter.

    ```mlir
    %grad_clip = tfm.hyperparameter grad_clip default 1.000000e+00
    %scale, %norm = tfm.clip_scale %sumsq max_norm %grad_clip
        : tensor<f32> -> tensor<f32>, tensor<f32>
    ```

    With `loss_scale` (a loss-scaled backward: every gradient is
    `loss_scale` times the true one) the norm is the true one,
    `sqrt(sum_squares) / loss_scale`, and `scale` also divides by
    `loss_scale`, so the update sees the true gradient clipped.

    **Constraints**
    - `max_norm` is read by `tfm.hyperparameter grad_clip`, `loss_scale`
      by `tfm.hyperparameter loss_scale`; operand and results are f32
      scalars.
  }];
  let arguments = (ins 0DTensorOf<[F32]>:$sum_squares, F64:$max_norm,
                       Optional<F64>:$loss_scale);
  let results = (outs 0DTensorOf<[F32]>:$scale, 0DTensorOf<[F32]>:$norm);
  let assemblyFormat = [{
    $sum_squares `max_norm` $max_norm (`loss_scale` $loss_scale^)? attr-dict
    `:` type($sum_squares) `->` type($scale) `,` type($norm)
  }];
  let hasVerifier = 1;
}

class Tfm_UpdateOp<string mnemonic, int moments>
    : Op<Tfm_Dialect, mnemonic, [Seqpar_CheckedTensorSizes,
        Tfm_ParamUpdateOpInterface,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        MemoryEffects<[MemWrite]>]> {
  let extraClassDeclaration = [{
    /// The parameter's declaration.
    ::seqpar::tfm::ParamOp getParamOp(
        ::mlir::SymbolTableCollection &symbolTable);
    /// The f32 moments kept per gradient element (ParamUpdateOpInterface).
    int64_t getStateMoments() { return }] # moments # [{; }
  }];
}

def Tfm_SgdUpdateOp : Tfm_UpdateOp<"sgd_update", 0> {
  let summary = "p -= lr * (scale * g + weight_decay * p)";
  let description = [{
    torch.optim.SGD without momentum, on this rank's shard of the parameter,
    with the gradient first multiplied by `scale` (gradient clipping). `lr`
    and `weight_decay` are the step's hyperparameters of those names.

    ```mlir
    %lr = tfm.hyperparameter lr default 1.000000e-01
    %weight_decay = tfm.hyperparameter weight_decay default 0.000000e+00
    tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay
        : tensor<8x8xf32>, tensor<f32>
    ```

    **Constraints**
    - the symbol names a `tfm.param`, read in this function with the
      gradient's type (the gradient has the parameter's layout), or with
      `master` as below;
    - `lr` and `weight_decay` are read by `tfm.hyperparameter` of the same
      name.

    With `master` (sp-optimizer under ZeRO-1 with a bf16 / f16 model) the
    parameter is stored in its bf16 / f16 type and the optimizer keeps the
    fp32 master weight of the slice it updates as state: the update applies
    to the master (the f32 gradient) and writes its rounding to nearest even
    into the parameter's slice. `master` needs a bf16 / f16 parameter, read
    with the gradient's shape (or a multiple of its first dimension) and
    the parameter's type, and an f32 gradient.
  }];
  let arguments = (ins FlatSymbolRefAttr:$param, Tfm_FloatTensor:$grad,
                       UnitAttr:$master, 0DTensorOf<[F32]>:$scale, F64:$lr,
                       F64:$weight_decay);
  let assemblyFormat = [{
    $param `,` $grad (`master` $master^)? `scale` $scale `lr` $lr
    `weight_decay` $weight_decay attr-dict `:` type($grad) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def Tfm_AdamWUpdateOp : Tfm_UpdateOp<"adamw_update", 2> {
  let summary = "one AdamW step of a parameter (torch.optim.AdamW)";
  let description = [{
    Updates this rank's shard of the parameter and its first and second
    moment estimates (fp32 state the runtime keeps per parameter, shaped
    like the shard), with the gradient first multiplied by `scale`. The
    step count is the run's; `lr`, the betas, `eps` and `weight_decay` are
    the step's hyperparameters of those names.

    ```mlir
    tfm.adamw_update @w, %g scale %s lr %lr betas %beta1, %beta2 eps %eps
        weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
    ```

    **Constraints**
    - the symbol names a `tfm.param`, read in this function with the
      gradient's type;
    - `lr`, `beta1`, `beta2`, `eps` and `weight_decay` are read by
      `tfm.hyperparameter` of the same name;
    - `master`: as `tfm.sgd_update`'s (the f32 master slice is state like
      the moments, updated as an f32 parameter would be, its rounding
      written into the bf16 / f16 parameter's slice).
  }];
  let arguments = (ins FlatSymbolRefAttr:$param, Tfm_FloatTensor:$grad,
                       UnitAttr:$master, 0DTensorOf<[F32]>:$scale, F64:$lr,
                       F64:$beta1, F64:$beta2, F64:$eps, F64:$weight_decay);
  let assemblyFormat = [{
    $param `,` $grad (`master` $master^)? `scale` $scale `lr` $lr `betas`
    $beta1 `,` $beta2 `eps` $eps `weight_decay` $weight_decay attr-dict `:`
    type($grad) `,` type($scale)
  }];
  let hasVerifier = 1;
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMOPTIMIZEROPS_TD

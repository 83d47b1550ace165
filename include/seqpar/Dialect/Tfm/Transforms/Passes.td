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

#endif // SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_TD

//===- Passes.td - seqpar conversions ----------------------*- tablegen -*-===//

#ifndef SEQPAR_CONVERSION_PASSES_TD
#define SEQPAR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// SpToRuntime
//===----------------------------------------------------------------------===//

def ConvertSpToRuntimePass : Pass<"convert-sp-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lowers a partitioned tfm/dist module to calls into libsprt";
  let description = [{
    Turns the per-rank `@train_step` of a partitioned module (or, when
    there is none, its `@forward`), `(input_ids, labels) -> (loss,
    [grad_norm,] grad...)`, into an LLVM-dialect function

    ```
    void seqpar_step(char *arena, float **params, const int64_t *input_ids,
                     const int64_t *labels, float *scalars, float **grads,
                     float **state);
    ```

    in which every tfm op is a call to its libsprt kernel and every dist op a
    call to its collective, on buffers at fixed 64-byte-aligned offsets of
    one arena per rank (sp-plan-buffers' plan, else one offset after the
    other), parameters read from the table `params` in declaration order and
    the optimizer's moment buffers from the table `state`. It writes the f32
    scalar results (the loss, then the gradient norm when there is one) to
    `scalars` and the arena addresses of the parameter gradients (the results
    marked `tfm.grad_of`) to `grads`. The module also exports
    `seqpar_model_json`, a NUL-terminated JSON description of the mesh, the
    global sequence and batch, the arena size and every parameter (Hugging
    Face name, global and local shape, layout, init), from which the
    runtime's main() sets up a run. The CPU runtime computes in f32.

    With pipeline parallelism the module holds one step function per
    pipeline stage (`tfm.pipeline_stage` k of `tfm.pipeline_stages` P):
    each lowers to the internal `seqpar_step_stage<k>` with the same
    signature, and `seqpar_step` calls the one of the rank's coordinate on
    the mesh's pipeline axis, then completes the sends the stage started
    (`sprt_complete_sends`). The model JSON then also gives the pipeline
    axis, the stages reading each parameter and, per stage, its arena,
    workspace, FLOPs, planned memory and gradients.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // SEQPAR_CONVERSION_PASSES_TD

//===- TfmDialect.td - the transformer dialect -------------*- tablegen -*-===//
//
// The `tfm` dialect: a transformer model on a single device, value semantics.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMDIALECT_TD
#define SEQPAR_DIALECT_TFM_IR_TFMDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "seqpar/Dialect/Common/SeqparTraits.td"

def Tfm_Dialect : Dialect {
  let name = "tfm";
  let cppNamespace = "::seqpar::tfm";
  let useDefaultAttributePrinterParser = 1;
  let summary = "A transformer model, written for one device";
  let description = [{
    `tfm` describes a transformer (GPT-2, GPT-NeoX, Llama, ...) as a
    straight-line function on ranked tensors with value semantics.
    Activations are `[s, b, h]` (sequence first, as in Megatron-LM) so that
    splitting the sequence across ranks splits a contiguous block.
    Parameters are module-level symbols (`tfm.param`) named exactly as in the
    Hugging Face checkpoint, read inside functions with `tfm.get_param`.
    Element types are f32, bf16 and f16.

    **Attributes the passes exchange** (declared here, checked by the
    dialect wherever they appear):
    - `tfm.forward` (unit, on a function): the model's forward function,
      `(input_ids, labels) -> loss`, that sp-partition partitions and
      tfm-autodiff differentiates; set by sp-import.
    - `tfm.train_step` (unit, on a function): the train step tfm-autodiff
      builds, `-> (loss, [grad_norm,] grad...)`.
    - `tfm.eval_step` (unit, on a function): the forward in evaluation
      mode that tfm-eval-step copies from `tfm.forward` (no dropout),
      `(input_ids, labels) -> loss`, which a training program exports as
      `seqpar_eval` for its validation loss.
    - `tfm.grad_of = @param` (on a function result): the result is the
      gradient of that `tfm.param`.
    - `tfm.backward_begins` (unit, on a `tfm.fill`): the seed of reverse
      mode; every op before it is forward.
    - `tfm.zero` (unit, on a train step): gradients are reduce-scattered
      over the data axis and each replica updates its slice (ZeRO-1).
    - `tfm.optimizer = #tfm.optimizer<adamw | sgd>` (on a train step):
      sp-optimizer ran.
    - `tfm.model_type` (string, on the module): the Hugging Face model_type.
    - `tfm.hf_config` (string, on the module): the Hugging Face config.json
      sp-import read (a JSON object), which the program writes back with
      `--export-hf`.
    - `tfm.hf_base_prefix` (string, on the module): the prefix of the
      family's parameter names that its base model's checkpoints drop
      (GPT2Model saves `h.0.ln_1.weight` for GPT2LMHeadModel's
      `transformer.h.0.ln_1.weight`: "transformer."), which the runtime's
      `--init-from` also looks up; set by sp-import.
    - `tfm.hf_buffers` (array of strings, on the module): the name
      suffixes of the tensors the family's Hugging Face checkpoints hold
      that are no parameters (causal masks, rotary inverse frequencies),
      which `--init-from` ignores as transformers does; set by sp-import.
    - `tfm.recompute = #tfm.recompute<none | selective | full>` (on the
      module): the
      activation recompute policy sp-recompute applied to the train step;
      no attribute means none.
    - `tfm.recomputed` (unit, on an op of a train step's backward): a copy
      of a forward op that sp-recompute placed in the backward, so that the
      backward reads it instead of keeping the forward's value.
    - `tfm.micro_batches` (integer >= 1, on a train step): sp-micro-batches
      looped its forward and backward over that many micro-batches, whose
      gradients it sums (each contribution is accumulated M times, which
      sp-verify's accounting expects); the token ids and labels are
      `[M, s, b]`; 1 if absent.
    - `tfm.in_micro_batch` (integer >= 0, on an op of a train step): the
      micro-batch whose forward or backward the op belongs to (the runtime's
      dropout masks and position ids are those of its rows of the step's
      batch); ops without it serve every micro-batch.
    - `tfm.name` (string, on a function argument): the argument's name for
      the runtime (`input_ids`, `labels`).
    - `tfm.contributes` (array, on an op of a train step): one entry per
      result, `unit` or the gradient contribution the result is, a string
      `"param#use"`: the cotangent tfm-autodiff delivered to the use-th
      (from 0) use of a read of `@param`. sp-verify's gradient accounting
      starts from these.
    - `tfm.grad_uses` (dictionary, on a train step): for every parameter,
      the number of contributions tfm-autodiff made to its gradient
      (`{"param" = 2 : i64}`), so that a dropped one is caught.
  }];
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$forward,
    "::mlir::UnitAttr":$train_step,
    "::mlir::UnitAttr":$eval_step,
    "::mlir::FlatSymbolRefAttr":$grad_of,
    "::mlir::UnitAttr":$backward_begins,
    "::mlir::UnitAttr":$zero,
    "::seqpar::tfm::OptimizerKindAttr":$optimizer,
    "::mlir::StringAttr":$model_type,
    "::mlir::StringAttr":$hf_config,
    "::mlir::StringAttr":$hf_base_prefix,
    "::mlir::ArrayAttr":$hf_buffers,
    "::seqpar::tfm::RecomputePolicyAttr":$recompute,
    "::mlir::UnitAttr":$recomputed,
    "::mlir::StringAttr":$name,
    "::mlir::StringAttr":$precision,
    "::mlir::UnitAttr":$loss_scaling,
    "::mlir::IntegerAttr":$micro_batches,
    "::mlir::IntegerAttr":$in_micro_batch,
    "::mlir::ArrayAttr":$contributes,
    "::mlir::DictionaryAttr":$grad_uses,
    "::mlir::IntegerAttr":$pipeline_stage,
    "::mlir::IntegerAttr":$pipeline_stages
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The function of `module` marked with the unit attribute `marker`
    /// (ForwardAttrHelper::getNameStr() or TrainStepAttrHelper's), or null
    /// if none is; a second one is an error at it, prefixed with `pass`.
    static ::mlir::FailureOr<::mlir::Operation *>
    getMarkedFunction(::mlir::Operation *module, ::llvm::StringRef marker,
                      ::llvm::StringRef pass);
    /// Every function of `module` marked with `marker`, in stage order:
    /// none, one, or (pipeline parallelism) one per stage, each carrying
    /// `tfm.pipeline_stage` = its index and `tfm.pipeline_stages` = their
    /// number, the stages 0 .. P-1 each once. Anything else is an error at
    /// the offending function, prefixed with `pass`.
    static ::mlir::FailureOr<::llvm::SmallVector<::mlir::Operation *>>
    getMarkedFunctions(::mlir::Operation *module, ::llvm::StringRef marker,
                       ::llvm::StringRef pass);
    /// The pipeline stage of function `fn` (tfm.pipeline_stage), 0 when it
    /// has none, and the number of stages (tfm.pipeline_stages), 1 when none.
    static int64_t getPipelineStage(::mlir::Operation *fn);
    static int64_t getPipelineStages(::mlir::Operation *fn);
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tfm_InitKind : I32EnumAttr<"InitKind", "parameter initialisation", [
    I32EnumAttrCase<"normal", 0>,
    I32EnumAttrCase<"zeros", 1>,
    I32EnumAttrCase<"ones", 2>]> {
  let cppNamespace = "::seqpar::tfm";
}

def Tfm_QkvPacking : I32EnumAttr<"QkvPacking",
    "how a fused QKV projection orders its output features", [
    // [q (all heads) | k (all kv heads) | v (all kv heads)]: GPT-2's c_attn.
    I32EnumAttrCase<"blocks", 0>,
    // [head 0: q k v | head 1: q k v | ...]: GPT-NeoX's query_key_value.
    I32EnumAttrCase<"heads", 1>]> {
  let cppNamespace = "::seqpar::tfm";
}

// A hyperparameter of the optimizer that the runtime sets per step
// (tfm.hyperparameter); the names are the runtime's (the model JSON's
// "hyperparameters" and the program's flags).
def Tfm_HyperparameterKind : I32EnumAttr<"HyperparameterKind",
    "a run-time hyperparameter of the optimizer", [
    I32EnumAttrCase<"lr", 0>,
    I32EnumAttrCase<"beta1", 1>,
    I32EnumAttrCase<"beta2", 2>,
    I32EnumAttrCase<"eps", 3>,
    I32EnumAttrCase<"weight_decay", 4>,
    I32EnumAttrCase<"grad_clip", 5>,
    // The factor the loss is multiplied by before the backward (fp16's
    // dynamic loss scaling: the runtime's scaler sets it per step).
    I32EnumAttrCase<"loss_scale", 6>]> {
  let cppNamespace = "::seqpar::tfm";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tfm_Float : AnyTypeOf<[F32, BF16, F16]>;
def Tfm_FloatTensor : RankedTensorOf<[F32, BF16, F16]>;
def Tfm_IndexTensor : RankedTensorOf<[I32, I64]>;
def Tfm_Scalar : 0DTensorOf<[F32]>;

#endif // SEQPAR_DIALECT_TFM_IR_TFMDIALECT_TD

//===- TfmInterfaces.td - tfm op interfaces ----------------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMINTERFACES_TD
#define SEQPAR_DIALECT_TFM_IR_TFMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tfm_SavedForBackwardOpInterface
    : OpInterface<"SavedForBackwardOpInterface"> {
  let cppNamespace = "::seqpar::tfm";
  let description = [{
    What an op keeps from its forward pass for its backward pass: operands or
    results it needs again, and tensors it computes internally (attention's
    softmax output, dropout masks). This one declaration drives both the
    memory report and, in autodiff, what the train step keeps live, so the
    two cannot disagree. Parameters are not listed: they live for the whole
    step anyway.
  }];
  let methods = [
    InterfaceMethod<"Appends the tensors kept for the backward pass.",
      "void", "getSavedForBackward",
      (ins "::llvm::SmallVectorImpl<::seqpar::tfm::SavedTensor> &":$saved)>,
  ];
}

def Tfm_ParamUpdateOpInterface : OpInterface<"ParamUpdateOpInterface"> {
  let cppNamespace = "::seqpar::tfm";
  let description = [{
    An optimizer update: writes one parameter (and the optimizer state the
    runtime keeps for it) in place from its gradient. sp-verify proves that a
    train step updates each parameter it has a gradient for exactly once,
    with that gradient; sp-optimizer refuses a step that already has one.
  }];
  let methods = [
    InterfaceMethod<"The updated parameter.", "::mlir::FlatSymbolRefAttr",
      "getParamAttr", (ins)>,
    InterfaceMethod<"The gradient the update applies.", "::mlir::Value",
      "getGrad", (ins)>,
    InterfaceMethod<[{
        The f32 moments of the gradient the runtime keeps per element
        (AdamW: m and v, 2; SGD: none), besides an f32 master slice: the
        optimizer state the memory plan counts.
      }], "int64_t", "getStateMoments", (ins)>,
  ];
}

def Tfm_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::seqpar::tfm";
  let description = [{
    An op that tfm-autodiff can differentiate: its backward rule reads the
    gradient of its results and contributes gradients to its operands,
    through the BackwardContext tfm-autodiff implements (BackwardContext.h).
    tfm's forward ops implement it in TfmBackward.cpp; the dist collectives
    that sp-partition puts in a forward get their transposes as external
    models attached by dist (registerDifferentiableOpModels, from
    seqpar::registerAllDialects). tfm-autodiff calls it, in reverse order,
    on every op one of whose results received a gradient; an op without it
    is an error.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the op's backward at the context's insertion point.
      }], "::mlir::LogicalResult", "buildBackward",
      (ins "::seqpar::tfm::BackwardContext &":$ctx)>,
  ];
}

// An op with a backward rule of its own (buildBackward, TfmBackward.cpp).
def Tfm_Differentiable
    : DeclareOpInterfaceMethods<Tfm_DifferentiableOpInterface>;

// An op whose backward propagates nothing to its operands: it has none (a
// parameter read: its gradient is the parameter's, which tfm-autodiff
// collects) or none that is differentiable (integer ids, a max subtracted
// for stability only).
def Tfm_NoBackwardImpl : NativeOpTrait<"NoBackward"> {
  let cppNamespace = "::seqpar::OpTrait";
}
def Tfm_NoBackward
    : TraitList<[Tfm_NoBackwardImpl, Tfm_DifferentiableOpInterface]>;

// What sp-recompute's selective policy recomputes instead of keeping (the
// recompute modules "layernorm" and the activation of Megatron-Core): a
// normalisation's output and an activation's output, cheap to compute again
// from inputs their own backward keeps anyway.
def Tfm_Normalization : NativeOpTrait<"Normalization"> {
  let cppNamespace = "::seqpar::OpTrait";
}
def Tfm_Activation : NativeOpTrait<"Activation"> {
  let cppNamespace = "::seqpar::OpTrait";
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMINTERFACES_TD

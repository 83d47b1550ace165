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
  ];
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMINTERFACES_TD

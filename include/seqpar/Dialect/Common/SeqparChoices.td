//===- SeqparChoices.td - the compiler's choice options ----*- tablegen -*-===//
//
// Every option that picks one of a few named choices (the optimizer, the
// recompute policy, the precision, ...) is one of these enums, declared
// once: the passes' options, sp-compile's pipelines (PipelineOptions) and
// sp-compile's flags take them with the values of SeqparChoices.h, so a
// choice is parsed, validated and reported in one place (the option
// library's "Cannot find option named" error), and code compares enums,
// not strings.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_SEQPARCHOICES_TD
#define SEQPAR_DIALECT_COMMON_SEQPARCHOICES_TD

include "mlir/IR/EnumAttr.td"

class Seqpar_Choice<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::seqpar";
  // The IR records a choice as a dialect's enum attribute (tfm's
  // #tfm.optimizer<adamw>, TfmAttrs.td), never as an integer.
  let genSpecializedAttr = 0;
}

def Seqpar_OptimizerKind : Seqpar_Choice<"OptimizerKind", "the optimizer", [
    I32EnumAttrCase<"adamw", 0>,
    I32EnumAttrCase<"sgd", 1>]>;

def Seqpar_RecomputePolicy : Seqpar_Choice<"RecomputePolicy",
    "what the backward recomputes instead of keeping", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"selective", 1>,
    I32EnumAttrCase<"full", 2>]>;

// The policy of sp-report's paper column: the step's own (its module's
// tfm.recompute), or another.
def Seqpar_PaperRecompute : Seqpar_Choice<"PaperRecompute",
    "the recompute policy of the memory report's paper column", [
    I32EnumAttrCase<"step", 0>,
    I32EnumAttrCase<"none", 1>,
    I32EnumAttrCase<"selective", 2>,
    I32EnumAttrCase<"full", 3>]>;

// The storage precision of a model; `imported` keeps the one it was
// imported with.
def Seqpar_Precision : Seqpar_Choice<"Precision", "the model's precision", [
    I32EnumAttrCase<"imported", 0>,
    I32EnumAttrCase<"bf16", 1>,
    I32EnumAttrCase<"fp16", 2>,
    I32EnumAttrCase<"fp32", 3>]>;

def Seqpar_GradReduceDtype : Seqpar_Choice<"GradReduceDtype",
    "the element type gradients are reduced in", [
    I32EnumAttrCase<"f32", 0>,
    I32EnumAttrCase<"bf16", 1>]>;

def Seqpar_MasterWeights : Seqpar_Choice<"MasterWeights",
    "where a bf16 / f16 model's f32 master weights live", [
    I32EnumAttrCase<"sharded", 0>,
    I32EnumAttrCase<"replicated", 1>,
    I32EnumAttrCase<"automatic", 2, "auto">]>;

def Seqpar_CpAttention : Seqpar_Choice<"CpAttention",
    "how attention sees the whole sequence under context parallelism", [
    I32EnumAttrCase<"allgather", 0>,
    I32EnumAttrCase<"ring", 1>]>;

def Seqpar_LossScaling : Seqpar_Choice<"LossScaling",
    "dynamic loss scaling", [
    I32EnumAttrCase<"automatic", 0, "auto">,
    I32EnumAttrCase<"on", 1>,
    I32EnumAttrCase<"off", 2>]>;

#endif // SEQPAR_DIALECT_COMMON_SEQPARCHOICES_TD

//===- TfmAttrs.td - tfm's attributes ----------------------*- tablegen -*-===//
//
// The choices a module or train step records (which optimizer sp-optimizer
// added, which recompute policy sp-recompute applied) as enum attributes of
// the choice enums the options use (Dialect/Common/SeqparChoices.td):
// `tfm.optimizer = #tfm.optimizer<adamw>`, `tfm.recompute =
// #tfm.recompute<selective>`. The parser refuses a name the enum lacks.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFMATTRS_TD
#define SEQPAR_DIALECT_TFM_IR_TFMATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "seqpar/Dialect/Common/SeqparChoices.td"
include "seqpar/Dialect/Tfm/IR/TfmDialect.td"

def Tfm_OptimizerAttr
    : EnumAttr<Tfm_Dialect, Seqpar_OptimizerKind, "optimizer"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_RecomputeAttr
    : EnumAttr<Tfm_Dialect, Seqpar_RecomputePolicy, "recompute"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // SEQPAR_DIALECT_TFM_IR_TFMATTRS_TD

//===- TfmFusedOps.td - ops the fusion passes create ------*- tablegen -*-===//
//
// Included from TfmOps.td. Each op computes what a short chain of tfm ops
// computes, with the same rounding, in one pass over memory. They are made by
// tfm-fuse-elementwise after autodiff and precision legalization (they are
// not differentiable) and implemented by every runtime backend.
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

#endif // SEQPAR_DIALECT_TFM_IR_TFMFUSEDOPS_TD

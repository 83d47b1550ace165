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
  let summary = "A transformer model, written for one device";
  let description = [{
    `tfm` describes a transformer (GPT-2, GPT-NeoX, Llama, ...) as a
    straight-line function on ranked tensors with value semantics.
    Activations are `[s, b, h]` (sequence first, as in Megatron-LM) so that
    splitting the sequence across ranks splits a contiguous block.
    Parameters are module-level symbols (`tfm.param`) named exactly as in the
    Hugging Face checkpoint, read inside functions with `tfm.get_param`.
    Element types are f32, bf16 and f16.
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

def Tfm_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by gelu", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::seqpar::tfm";
}

def Tfm_WeightLayout : I32EnumAttr<"WeightLayout",
    "storage order of a linear weight", [
    // torch.nn.Linear: [out_features, in_features].
    I32EnumAttrCase<"out_in", 0>,
    // GPT-2's Conv1D: [in_features, out_features].
    I32EnumAttrCase<"in_out", 1>]> {
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

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tfm_Float : AnyTypeOf<[F32, BF16, F16]>;
def Tfm_FloatTensor : RankedTensorOf<[F32, BF16, F16]>;
def Tfm_IndexTensor : RankedTensorOf<[I32, I64]>;
def Tfm_Scalar : 0DTensorOf<[F32]>;

#endif // SEQPAR_DIALECT_TFM_IR_TFMDIALECT_TD

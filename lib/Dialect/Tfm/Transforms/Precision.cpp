//===- Precision.cpp - the model's precision (tfm-precision) --------------===//
//
// Retypes a model as sp-import writes it to bf16, f16 or f32: parameters,
// activations and function signatures; the scalar loss stays f32. See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMPRECISIONPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

FloatType tfm::precisionType(MLIRContext *ctx, Precision precision) {
  switch (precision) {
  case Precision::bf16:
    return FloatType::getBF16(ctx);
  case Precision::fp16:
    return FloatType::getF16(ctx);
  case Precision::fp32:
    return FloatType::getF32(ctx);
  case Precision::imported:
    break;
  }
  return {};
}

StringRef tfm::precisionName(Type t) {
  return t.isBF16() ? "bf16" : t.isF16() ? "f16" : "f32";
}

/// `t` with a floating-point element type of rank >= 1 (or any rank when
/// `scalars`) retyped to `to`; null when it stays.
static Type retype(Type t, FloatType to, bool scalars) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor || !isa<FloatType>(tensor.getElementType()) ||
      (tensor.getRank() == 0 && !scalars) || tensor.getElementType() == to)
    return {};
  return RankedTensorType::get(tensor.getShape(), to, tensor.getEncoding());
}

namespace {
struct TfmPrecisionPass : tfm::impl::TfmPrecisionPassBase<TfmPrecisionPass> {
  using TfmPrecisionPassBase::TfmPrecisionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // imported: the model stays as it is.
    FloatType to = precisionType(&getContext(), precision);
    if (!to)
      return;
    // The partitioner and the backward create f32 statistics and f32
    // gradients of their own: the precision is the model's, set before.
    if (Operation *late = findLateOp(module)) {
      late->emitOpError() << "is already partitioned or differentiated: "
                             "tfm-precision runs on the model before "
                             "sp-partition";
      return signalPassFailure();
    }
    for (auto param : module.getOps<ParamOp>())
      if (Type t = retype(param.getType(), to, /*scalars=*/true))
        param.setType(cast<RankedTensorType>(t));
    module.walk([&](Operation *op) {
      for (Value r : op->getResults())
        if (Type t = retype(r.getType(), to, /*scalars=*/false))
          r.setType(t);
    });
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal())
        continue;
      for (BlockArgument a : f.getArguments())
        if (Type t = retype(a.getType(), to, /*scalars=*/false))
          a.setType(t);
      // The signature from the retyped entry block (the function type still
      // holds the old argument types).
      Block &entry = f.getBody().front();
      f.setType(FunctionType::get(&getContext(), entry.getArgumentTypes(),
                                  entry.getTerminator()->getOperandTypes()));
    }
    module->setAttr(TfmDialect::PrecisionAttrHelper::getNameStr(),
                    StringAttr::get(&getContext(), precisionName(to)));
  }

  /// A dist.mesh or a train step: the module is past the model stage.
  static Operation *findLateOp(ModuleOp module) {
    for (Operation &op : *module.getBody())
      if (isa<dist::MeshOp>(op) ||
          op.hasAttr(TfmDialect::TrainStepAttrHelper::getNameStr()))
        return &op;
    return nullptr;
  }
};
} // namespace

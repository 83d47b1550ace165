//===- RuntimeLoweringInterface.cpp - op -> libsprt call ------------------===//

#include "seqpar/Conversion/RuntimeLoweringInterface.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace seqpar;

#include "seqpar/Conversion/RuntimeLoweringInterface.cpp.inc"

RuntimeEmitter::~RuntimeEmitter() = default;

int64_t RuntimeEmitter::numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

int64_t RuntimeEmitter::lastDim(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape().back();
}

int64_t RuntimeEmitter::dim(Value v, int64_t d) {
  return cast<RankedTensorType>(v.getType()).getDimSize(d);
}

int64_t RuntimeEmitter::elemBytes(Value v) {
  return llvm::divideCeil(
      cast<RankedTensorType>(v.getType()).getElementTypeBitWidth(), 8);
}

SmallVector<Value> RuntimeEmitter::collectiveArgs(Value in, Value out,
                                                  bool withElemBytes) {
  SmallVector<Value> args{ptr(in), ptr(out)};
  if (withElemBytes)
    args.push_back(i64(elemBytes(in)));
  auto t = cast<RankedTensorType>(in.getType());
  args.push_back(i32(t.getRank()));
  for (int64_t d = 0; d < 4; ++d)
    args.push_back(i64(d < t.getRank() ? t.getDimSize(d) : 1));
  return args;
}

void seqpar::registerRuntimeLoweringModels(DialectRegistry &registry) {
  registerTfmRuntimeLoweringModels(registry);
  registerDistRuntimeLoweringModels(registry);
}

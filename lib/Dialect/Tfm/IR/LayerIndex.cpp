//===- LayerIndex.cpp - the transformer layer of an op --------------------===//

#include "seqpar/Dialect/Tfm/IR/LayerIndex.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Regex.h"

using namespace mlir;

int64_t seqpar::tfm::layerOf(Location loc) {
  static const llvm::Regex layerPath("\\.(h|layers)\\.([0-9]+)(\\.|$)");
  int64_t layer = -1;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l)) {
      SmallVector<StringRef> m;
      if (layerPath.match(name.getName().getValue(), &m)) {
        m[2].getAsInteger(10, layer);
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return layer;
}

//===- sp-opt.cpp - seqpar's optimizer driver -----------------------------===//
//
// mlir-opt for seqpar: our dialects plus only the upstream ones we use.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Conversion/Passes.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"
#include "seqpar/InitAll.h"
#include "seqpar/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  seqpar::registerAllDialects(registry);
  seqpar::dist::registerDistPasses();
  seqpar::tfm::registerTfmPasses();
  seqpar::registerSeqparConversionPasses();
  seqpar::registerPipelines();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "seqpar optimizer driver\n", registry));
}

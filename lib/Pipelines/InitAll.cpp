//===- InitAll.cpp - the dialects and interfaces seqpar's tools use -------===//

#include "seqpar/InitAll.h"

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/Analysis/PlanFacts.h"
#include "seqpar/Dialect/Dist/Extensions/TfmModels.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/IR/DistBackward.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/DialectRegistry.h"

void seqpar::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::func::FuncDialect, mlir::LLVM::LLVMDialect,
                  tfm::TfmDialect, dist::DistDialect>();
  // External models, one line per library that attaches some.
  dist::registerTfmModels(registry);
  seqpar::registerRuntimeLoweringModels(registry);
  dist::registerDifferentiableOpModels(registry);
  dist::registerSavedForBackwardModels(registry);
  dist::registerCostModels(registry);
  dist::registerPlanFactsModels(registry);
}

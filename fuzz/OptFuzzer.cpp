//===- OptFuzzer.cpp - fuzz target: sp-opt's parse, verify, partition ----===//
//
// Parses arbitrary bytes as a module with the dialects sp-opt registers
// (func, llvm, tfm, dist), verifies it, runs sp-verify on it, then runs
// sp-partition under a few option sets on a copy and sp-verify on every
// result. Diagnostics are discarded: a rejected input is a normal outcome. A
// crash, a hang, a sanitizer finding, or a module that sp-verify accepts,
// sp-partition accepts and sp-verify then rejects is a bug.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
struct PartitionOptions {
  int64_t tp, dp;
  bool sequenceParallel;
};
} // namespace

static const PartitionOptions kOptionSets[] = {
    {2, 1, true}, {2, 1, false}, {4, 1, true}, {2, 2, true}, {1, 2, false}};

static mlir::LogicalResult runVerify(mlir::MLIRContext &context,
                                     mlir::ModuleOp module) {
  mlir::PassManager pm(&context);
  pm.addPass(seqpar::dist::createSpVerifyPass());
  return pm.run(module);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  seqpar::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });

  // MLIR's lexer, like sp-opt's file reader, relies on a NUL after the
  // buffer's end: give it one (std::string keeps it past size()).
  std::string text(reinterpret_cast<const char *>(data), size);
  // Parsing verifies the module.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context, "fuzz.mlir");
  if (!module)
    return 0;
  // sp-partition's output must pass sp-verify whenever its input did.
  bool inputVerified = mlir::succeeded(runVerify(context, *module));

  for (const PartitionOptions &set : kOptionSets) {
    mlir::OwningOpRef<mlir::ModuleOp> copy = module->clone();
    mlir::PassManager pm(&context);
    seqpar::dist::SpPartitionPassOptions options;
    options.tp = set.tp;
    options.dp = set.dp;
    options.sequenceParallel = set.sequenceParallel;
    pm.addPass(seqpar::dist::createSpPartitionPass(options));
    if (mlir::failed(pm.run(*copy)))
      continue;
    if (inputVerified && mlir::failed(runVerify(context, *copy))) {
      llvm::errs() << "sp-fuzz-opt: sp-verify rejects the output of "
                      "sp-partition{tp="
                   << set.tp << " dp=" << set.dp << " sequence-parallel="
                   << (set.sequenceParallel ? "true" : "false") << "}\n";
      std::abort();
    }
  }
  return 0;
}

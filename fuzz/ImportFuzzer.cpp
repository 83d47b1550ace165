//===- ImportFuzzer.cpp - fuzz target: sp-import's config.json -----------===//
//
// Feeds arbitrary bytes to seqpar::importHFConfig, the entry point of
// sp-import. An error is a normal outcome; a crash, a hang, a sanitizer
// finding or an imported module that does not verify is a bug.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Import/HFImport.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  // Discard diagnostics: only crashes and broken invariants matter here.
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  seqpar::HFImportOptions options;
  options.source = "fuzz.json";
  // A short fixed sequence keeps each run small; the config's own sizes
  // (hidden size, heads, layers, vocabulary, positions) are all fuzzed.
  options.seqLen = 16;
  options.batch = 2;
  llvm::StringRef json(reinterpret_cast<const char *>(data), size);
  auto module = seqpar::importHFConfig(json, options, &context);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  if (mlir::failed(mlir::verify(**module))) {
    llvm::errs() << "sp-fuzz-import: importHFConfig returned a module that "
                    "does not verify\n";
    std::abort();
  }
  return 0;
}

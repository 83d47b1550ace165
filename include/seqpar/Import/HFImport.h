//===- HFImport.h - Hugging Face config.json to tfm IR ----------*- C++ -*-===//

#ifndef SEQPAR_IMPORT_HFIMPORT_H
#define SEQPAR_IMPORT_HFIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

namespace seqpar {

struct HFImportOptions {
  /// Sequence length of the forward function; 0 means the config's maximum
  /// number of positions.
  int64_t seqLen = 0;
  int64_t batch = 1;
  /// Element type of parameters and activations: "f32", "bf16" or "f16".
  std::string dtype = "f32";
  /// Name of the config, used in error messages.
  std::string source = "config.json";
};

/// Builds the whole model described by a Hugging Face config.json (GPT-2,
/// GPT-NeoX or Llama) as a tfm module: parameters named and shaped as in the
/// Hugging Face checkpoint and a function `@forward(input_ids, labels)` that
/// returns the mean cross-entropy loss. Errors are one line naming the field.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importHFConfig(llvm::StringRef json, const HFImportOptions &options,
               mlir::MLIRContext *context);

} // namespace seqpar

#endif // SEQPAR_IMPORT_HFIMPORT_H

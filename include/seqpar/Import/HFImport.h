//===- HFImport.h - Hugging Face config.json to tfm IR ----------*- C++ -*-===//

#ifndef SEQPAR_IMPORT_HFIMPORT_H
#define SEQPAR_IMPORT_HFIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

namespace seqpar {

/// Limits on what importHFConfig reads and builds; each is an error naming the
/// input. Published configs are a few KiB and nest at most 3 levels deep.
/// A config larger than this is refused (sp-import reads at most this + 1
/// bytes, so an endless input ends).
inline constexpr size_t kMaxConfigBytes = 16 << 20;
/// llvm::json::parse, printing and destroying a json::Value recurse once per
/// level of nesting: the depth is checked on the text before parsing.
inline constexpr unsigned kMaxJsonDepth = 64;
/// A layer is ~20 ops and 12 to 16 parameters. 65536 GPT-2 layers (1.3M ops)
/// take ~20 s of CPU and ~1.5 GB of memory to import, a module still worth
/// building, and 500x the depth of the deepest published model (128 layers);
/// a layer count beyond it is refused before anything is built.
inline constexpr int64_t kMaxLayers = 65536;

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

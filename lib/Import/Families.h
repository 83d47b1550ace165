//===- Families.h - one importer per Hugging Face model_type ----*- C++ -*-===//

#ifndef SEQPAR_LIB_IMPORT_FAMILIES_H
#define SEQPAR_LIB_IMPORT_FAMILIES_H

#include "ConfigReader.h"
#include "seqpar/Import/HFImport.h"

namespace seqpar {

/// What every family needs besides its config.
struct ImportTarget {
  mlir::ModuleOp module;
  mlir::Type elementType;
  const HFImportOptions &options;

  /// The sequence length to build for: --seq-len, or the config's maximum
  /// number of positions. Learned position tables cannot go beyond it.
  Dim seqLen(ConfigReader &cfg, llvm::StringRef maxKey, int64_t maxPositions,
             bool learnedPositions) const;
  /// --batch as a dimension.
  Dim batch() const;
};

/// Each returns false with the error recorded in `cfg`.
bool importGPT2(ConfigReader &cfg, const ImportTarget &target);
bool importGPTNeoX(ConfigReader &cfg, const ImportTarget &target);
bool importLlama(ConfigReader &cfg, const ImportTarget &target);

/// `hidden / heads`, recording an error naming both fields if it is not whole.
int64_t headDim(ConfigReader &cfg, int64_t hidden, llvm::StringRef hiddenKey,
                int64_t heads, llvm::StringRef headsKey);

} // namespace seqpar

#endif // SEQPAR_LIB_IMPORT_FAMILIES_H

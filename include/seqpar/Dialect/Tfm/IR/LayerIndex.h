//===- LayerIndex.h - the transformer layer of an op ------------*- C++ -*-===//
//
// sp-import locates every op at its Hugging Face module path
// (`transformer.h.3.attn`, `gpt_neox.layers.3.mlp`, `model.layers.3.mlp`);
// the passes that work per layer (sp-report, sp-recompute) read the layer
// from there.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_LAYERINDEX_H
#define SEQPAR_DIALECT_TFM_IR_LAYERINDEX_H

#include "mlir/IR/Location.h"

#include <cstdint>

namespace seqpar::tfm {
/// The transformer layer an op at `loc` belongs to, from the first Hugging
/// Face module path in it naming one (`.h.<i>` or `.layers.<i>`), or -1
/// (embeddings, final norm, LM head and loss).
int64_t layerOf(mlir::Location loc);
} // namespace seqpar::tfm

#endif // SEQPAR_DIALECT_TFM_IR_LAYERINDEX_H

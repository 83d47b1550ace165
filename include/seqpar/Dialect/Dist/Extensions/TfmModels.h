//===- TfmModels.h - dist's interfaces attached to tfm's ops ----*- C++ -*-===//
//
// tfm does not depend on dist: the dist interfaces of tfm's ops (their layout
// rules, their sp-partition rewrites) are external models that dist attaches
// when a context loads tfm. Every tool gets them from
// seqpar::registerAllDialects.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_EXTENSIONS_TFMMODELS_H
#define SEQPAR_DIALECT_DIST_EXTENSIONS_TFMMODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace seqpar::dist {

/// ShardingRuleOpInterface for tfm's forward ops (LayoutRules.cpp).
void registerTfmShardingRuleModels(mlir::DialectRegistry &registry);
/// ShardingRuleOpInterface for tfm's backward and optimizer ops
/// (GradLayoutRules.cpp).
void registerTfmGradShardingRuleModels(mlir::DialectRegistry &registry);
/// PartitionOpInterface for the tfm ops sp-partition rewrites
/// (TfmPartition.cpp).
void registerTfmPartitionModels(mlir::DialectRegistry &registry);

/// All of the above.
inline void registerTfmModels(mlir::DialectRegistry &registry) {
  registerTfmShardingRuleModels(registry);
  registerTfmGradShardingRuleModels(registry);
  registerTfmPartitionModels(registry);
}

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_EXTENSIONS_TFMMODELS_H

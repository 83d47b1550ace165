//===- DistBackward.h - transposes of dist collectives ---------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DISTBACKWARD_H
#define SEQPAR_DIALECT_DIST_IR_DISTBACKWARD_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace seqpar::dist {

/// Attaches tfm's DifferentiableOpInterface to the dist collectives that
/// sp-partition puts in a forward (all_gather, reduce_scatter, local_slice,
/// all_reduce): their transposes, as external models, so that tfm does not
/// depend on dist. Called by seqpar::registerAllDialects.
void registerDifferentiableOpModels(mlir::DialectRegistry &registry);

/// Attaches SavedForBackwardOpInterface to every dist op: the fused
/// collective GEMMs keep their input, the other collectives and the
/// backward ops nothing (ring attention's is attached with its transpose).
/// The memory report asks every op of a forward, and an op without the
/// declaration is an error there.
void registerSavedForBackwardModels(mlir::DialectRegistry &registry);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_IR_DISTBACKWARD_H

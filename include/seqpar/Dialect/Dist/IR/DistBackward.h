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

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_IR_DISTBACKWARD_H

//===- InitAll.h - the dialects and interfaces seqpar's tools use -*- C++
//-*-===//

#ifndef SEQPAR_INITALL_H
#define SEQPAR_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace seqpar {

/// Inserts the dialects seqpar's tools use (func, llvm, tfm, dist) and the
/// op interfaces implemented outside an op's own dialect (external models:
/// the sharding rules of tfm ops live in dist, so tfm does not depend on
/// dist). Every tool, fuzzer and test that builds a context uses this.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace seqpar

#endif // SEQPAR_INITALL_H

//===- ModelBuilder.h - builds a tfm model function -------------*- C++ -*-===//

#ifndef SEQPAR_LIB_IMPORT_MODELBUILDER_H
#define SEQPAR_LIB_IMPORT_MODELBUILDER_H

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace seqpar {

/// Emits the parameters and the `@forward(input_ids, labels) -> loss`
/// function of a model, one Hugging Face module at a time. Every op is
/// located at the Hugging Face module path it comes from (NameLoc), so
/// diagnostics and per-layer reports can name it.
class ModelBuilder {
public:
  ModelBuilder(mlir::ModuleOp module, mlir::Type elementType, int64_t seqLen,
               int64_t batch);

  int64_t seqLen() const { return seq; }
  mlir::Value inputIds() { return forward.getArgument(0); }
  mlir::Value labels() { return forward.getArgument(1); }

  /// Ops created next are located at `path` (e.g. "transformer.h.0.attn").
  void at(llvm::StringRef path);

  /// Declares parameter `name` (once) and reads it.
  mlir::Value param(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                    tfm::InitKind init, double std = 0.0);
  /// A linear layer with parameters `<prefix>.weight` (and `<prefix>.bias`).
  mlir::Value linear(mlir::Value x, llvm::StringRef prefix, int64_t in,
                     int64_t out, bool bias, tfm::WeightLayout layout,
                     double std);
  /// A linear layer with an existing weight (a tied LM head).
  mlir::Value linearWith(mlir::Value x, mlir::Value weight, int64_t out);
  mlir::Value layerNorm(mlir::Value x, llvm::StringRef prefix, double eps,
                        bool bias = true);
  mlir::Value rmsNorm(mlir::Value x, llvm::StringRef prefix, double eps);
  /// Dropout with a fresh random stream; the identity (no op) for rate 0.
  mlir::Value dropout(mlir::Value x, double rate);
  mlir::Value embedding(mlir::Value ids, mlir::Value table);
  mlir::Value positionIds();
  mlir::Value qkvSplit(mlir::Value qkv, tfm::QkvPacking packing, int64_t heads,
                       int64_t kvHeads, int64_t headDim, mlir::Value &k,
                       mlir::Value &v);
  mlir::Value attention(mlir::Value q, mlir::Value k, mlir::Value v,
                        int64_t heads, int64_t kvHeads, int64_t headDim,
                        int64_t rotaryDim, double rotaryTheta,
                        double dropoutRate);
  mlir::Value gelu(mlir::Value x, tfm::GeluApproximation approximate);
  mlir::Value silu(mlir::Value x);
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  /// Cross-entropy of the logits against the labels, returned by @forward.
  void finish(mlir::Value logits);

private:
  mlir::RankedTensorType activation(int64_t width);

  mlir::ModuleOp module;
  mlir::OpBuilder moduleBuilder, b;
  mlir::Type elementType;
  int64_t seq, batch;
  mlir::func::FuncOp forward;
  mlir::Location loc;
  int64_t nextStream = 0;
  /// Names of the parameters declared so far. SymbolTable::lookupSymbolIn
  /// scans the module, which made the import quadratic in the layer count.
  llvm::StringSet<> declared;
};

} // namespace seqpar

#endif // SEQPAR_LIB_IMPORT_MODELBUILDER_H

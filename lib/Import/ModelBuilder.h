//===- ModelBuilder.h - builds a tfm model function -------------*- C++ -*-===//

#ifndef SEQPAR_LIB_IMPORT_MODELBUILDER_H
#define SEQPAR_LIB_IMPORT_MODELBUILDER_H

#include "ConfigReader.h"

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
///
/// Dimensions are Dims, naming the input each comes from: every tensor type
/// built is checked to have fewer than 2^63 elements and bytes, and so is the
/// sum of all parameters. The first overflow is recorded in the ConfigReader
/// (callers check `failed()` after each layer); types built after it are
/// never verified or printed.
class ModelBuilder {
public:
  ModelBuilder(mlir::ModuleOp module, mlir::Type elementType, ConfigReader &cfg,
               Dim seqLen, Dim batch);

  int64_t seqLen() const { return seq.value; }
  mlir::Value inputIds() { return forward.getArgument(0); }
  mlir::Value labels() { return forward.getArgument(1); }

  /// Records how the family's Hugging Face checkpoints name tensors: the
  /// prefix its base model drops (`tfm.hf_base_prefix`) and the name
  /// suffixes of buffers that are no parameters (`tfm.hf_buffers`).
  void checkpointNames(llvm::StringRef basePrefix,
                       llvm::ArrayRef<llvm::StringRef> bufferSuffixes);

  /// Ops created next are located at `path` (e.g. "transformer.h.0.attn").
  void at(llvm::StringRef path);

  /// Declares parameter `name` (once) and reads it.
  mlir::Value param(llvm::StringRef name, llvm::ArrayRef<Dim> shape,
                    tfm::InitKind init, double std = 0.0);
  /// A linear layer with parameters `<prefix>.weight` (and `<prefix>.bias`).
  mlir::Value linear(mlir::Value x, llvm::StringRef prefix, const Dim &in,
                     const Dim &out, bool bias, seqpar::WeightLayout layout,
                     double std);
  /// A linear layer with an existing weight (a tied LM head).
  mlir::Value linearWith(mlir::Value x, mlir::Value weight, const Dim &out);
  mlir::Value layerNorm(mlir::Value x, llvm::StringRef prefix, const Dim &width,
                        double eps, bool bias = true);
  mlir::Value rmsNorm(mlir::Value x, llvm::StringRef prefix, const Dim &width,
                      double eps);
  /// Dropout with a fresh random stream; the identity (no op) for rate 0.
  mlir::Value dropout(mlir::Value x, double rate);
  mlir::Value embedding(mlir::Value ids, mlir::Value table, const Dim &width);
  mlir::Value positionIds();
  /// Splits `qkv` into q (qWidth = heads * headDim features) and k, v
  /// (kvWidth = kvHeads * headDim features each).
  mlir::Value qkvSplit(mlir::Value qkv, tfm::QkvPacking packing, int64_t heads,
                       int64_t kvHeads, int64_t headDim, const Dim &qWidth,
                       const Dim &kvWidth, mlir::Value &k, mlir::Value &v);
  mlir::Value attention(mlir::Value q, mlir::Value k, mlir::Value v,
                        const Dim &heads, int64_t kvHeads, int64_t headDim,
                        int64_t rotaryDim, double rotaryTheta,
                        double dropoutRate);
  mlir::Value gelu(mlir::Value x, GeluApproximation approximate);
  mlir::Value silu(mlir::Value x);
  mlir::Value relu(mlir::Value x);
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  /// Cross-entropy of the logits against the labels, returned by @forward.
  void finish(mlir::Value logits);

  /// Call before the first layer and after it: checks that `layers` layers
  /// like the first keep the parameter count and bytes below 2^63, so a
  /// model too large fails before the other layers are built.
  void beginLayers() { paramsBeforeLayers = paramElements; }
  void checkLayerCount(const Dim &layers);

private:
  mlir::RankedTensorType activation(const Dim &width);
  void countParams(int64_t count, const Dim &blame, llvm::StringRef name);

  mlir::ModuleOp module;
  mlir::OpBuilder moduleBuilder, b;
  mlir::Type elementType;
  int64_t elementBytes;
  ConfigReader &cfg;
  Dim seq, batch;
  mlir::func::FuncOp forward;
  mlir::Location loc;
  std::string path;
  int64_t nextStream = 0;
  /// The model's one tfm.position_ids (the learned position table's ids and
  /// every attention's rotary positions and document mask).
  mlir::Value positions;
  /// Names of the parameters declared so far. SymbolTable::lookupSymbolIn
  /// scans the module, which made the import quadratic in the layer count.
  llvm::StringSet<> declared;
  /// Elements of all parameters declared so far (checked against 2^63).
  int64_t paramElements = 0;
  int64_t paramsBeforeLayers = 0;
};

} // namespace seqpar

#endif // SEQPAR_LIB_IMPORT_MODELBUILDER_H

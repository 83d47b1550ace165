//===- RuntimeLoweringInterface.h - op -> libsprt call ----------*- C++ -*-===//
//
// RuntimeLoweringOpInterface: how convert-sp-to-runtime lowers one op to
// calls into libsprt, and RuntimeEmitter, the pass state an implementation
// emits through. The runtime ABI (every callee and its arguments' kinds are
// declared in runtime/include/sprt/abi.def): pointers are `ptr`, sizes and
// attributes i64, flags and mesh-axis indices i32, floating attributes f64.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_CONVERSION_RUNTIMELOWERINGINTERFACE_H
#define SEQPAR_CONVERSION_RUNTIMELOWERINGINTERFACE_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <tuple>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace seqpar {

/// The runtime's code of a float element type (SPRT_DTYPE in
/// runtime/include/sprt/abi.def; any other type is f32's).
int64_t runtimeDtypeCode(mlir::Type t);

/// The runtime's code of an attention's document mask (SPRT_DOCUMENTS in
/// runtime/include/sprt/abi.def): none without `documentCausal`; the step's
/// position ids' (the causal mask unless the data packs documents) where
/// `positions` are tfm.position_ids'; else the positions' as given.
int64_t runtimeDocumentsCode(bool documentCausal, mlir::Value positions);

/// The runtime's code of a tensor's element type.
inline int64_t runtimeDtypeCode(mlir::Value tensor) {
  return runtimeDtypeCode(
      mlir::cast<mlir::ShapedType>(tensor.getType()).getElementType());
}

/// Whether every tensor operand and result of `op` is f32: a GEMM of it
/// calls the runtime's f32 kernel, else the typed one.
inline bool allTensorsF32(mlir::Operation *op) {
  auto f32 = [](mlir::Type t) {
    return mlir::cast<mlir::ShapedType>(t).getElementType().isF32();
  };
  return llvm::all_of(op->getOperandTypes(), f32) &&
         llvm::all_of(op->getResultTypes(), f32);
}

/// What convert-sp-to-runtime provides to an op's lowering: the buffers of
/// its operands and results, constants, calls, and the step's mesh,
/// parameter and optimizer-state tables. Every value is emitted at the
/// insertion point of the op being lowered, in the order of the calls made
/// here (C++ evaluates a braced argument list left to right).
class RuntimeEmitter {
public:
  virtual ~RuntimeEmitter();

  /// The buffer of `tensor` (an arena slot, a parameter or a step input).
  virtual mlir::Value ptr(mlir::Value tensor) = 0;
  /// ptr(tensor), or a null pointer for an absent optional operand.
  mlir::Value optionalPtr(mlir::Value tensor) {
    return tensor ? ptr(tensor) : null();
  }
  virtual mlir::Value i64(int64_t v) = 0;
  /// An i32 constant (a flag, a rank or a mesh-axis index); `v` is
  /// truncated.
  virtual mlir::Value i32(int64_t v) = 0;
  virtual mlir::Value f64(double v) = 0;
  virtual mlir::Value null() = 0;
  /// The step's value of run-time hyperparameter `name` (an f64 the
  /// runtime passes to every step in its hyperparameter table; the lowering
  /// records each one's slot and default in the model description).
  virtual mlir::Value hyperparameter(llvm::StringRef name) = 0;
  /// Its slot in that table (where the runtime's step values hold it on the
  /// device: sprt_step_hyperparameter).
  virtual int64_t hyperparameterSlot(llvm::StringRef name) = 0;
  /// Binds `hostScalar` (an f64 SSA value, not a tensor) to its lowered
  /// value, and reads it back: an operand of a later op.
  virtual void bindScalar(mlir::Value hostScalar, mlir::Value lowered) = 0;
  virtual mlir::Value scalar(mlir::Value hostScalar) = 0;
  /// Calls the runtime function `name` (declared once per module, returning
  /// void, with the types of `args`).
  virtual void call(llvm::StringRef name, llvm::ArrayRef<mlir::Value> args) = 0;
  /// Calls the runtime function `name` that starts an operation and
  /// returns its handle (an i64), and waits for it (sprt_wait) before the
  /// calls of op `waitPoint`.
  virtual void callAsync(llvm::StringRef name, llvm::ArrayRef<mlir::Value> args,
                         mlir::Operation *waitPoint) = 0;

  /// The index of mesh axis `axis` (-1 if the mesh has none).
  virtual int32_t axisIndex(llvm::StringRef axis) const = 0;
  /// axisIndex(axis) as an i32 constant.
  mlir::Value axisOf(llvm::StringRef axis) { return i32(axisIndex(axis)); }
  /// The mesh axis (index) that splits dimension `dim` of `v` contiguously
  /// (inside a zigzag split, if the dimension has one too), or -1.
  virtual int32_t splitAxis(mlir::Value v, int64_t dim) const = 0;
  /// The mesh axis (index) that splits dimension `dim` of `v` in zigzag
  /// (context parallelism), or -1.
  virtual int32_t zigzagAxis(mlir::Value v, int64_t dim) const = 0;

  /// The index of parameter `name` in the step's parameter table.
  virtual int64_t paramIndex(llvm::StringRef name) const = 0;
  /// The element type parameter `index` is stored in.
  virtual mlir::Type paramElementType(int64_t index) const = 0;
  /// Parameter `index`'s shard, and optimizer state table entry `index`
  /// (two per parameter for AdamW: 2 * index and 2 * index + 1).
  virtual mlir::Value paramPointer(int64_t index) = 0;
  virtual mlir::Value statePointer(int64_t index) = 0;
  /// The f32 master slice the optimizer keeps for parameter `index` (an
  /// update with `master`): state table entry index after the moments
  /// (2 * #params + index for AdamW, index for SGD).
  virtual mlir::Value masterPointer(int64_t index) = 0;
  /// The mesh axes over which a distributed optimizer slices this gradient
  /// (its first dimension), nested outermost first (the data axis, then the
  /// context axis); empty when it is not sliced.
  virtual llvm::SmallVector<int32_t, 2>
  zeroShardAxes(mlir::Value grad) const = 0;

  /// The workspace of `op` (WorkspaceOpInterface) as the runtime takes it:
  /// its pointer in the arena and its bytes (i64), or a null pointer and 0
  /// when the op needs none.
  virtual std::pair<mlir::Value, mlir::Value>
  workspace(mlir::Operation *op) = 0;

  /// The address of argument bundle `name` of sprt/abi.def (a struct on the
  /// stack, built once per call) holding `fields` in its order; fields of
  /// other types or number are a lowering error, as a call's are.
  virtual mlir::Value bundle(llvm::StringRef name,
                             llvm::ArrayRef<mlir::Value> fields) = 0;
  /// Stack arrays of the pointers of `inputs` and `results` and of the
  /// inputs' element counts, for the coalesced collectives.
  virtual std::tuple<mlir::Value, mlir::Value, mlir::Value>
  pointerArrays(mlir::ValueRange inputs, mlir::ValueRange results) = 0;
  /// Stack arrays of the pointers of `tensors` and of their element counts
  /// (a multi-tensor kernel's list).
  virtual std::pair<mlir::Value, mlir::Value>
  pointerArray(mlir::ValueRange tensors) = 0;
  /// The leading arguments of a collective: in, out, [element bytes,] and
  /// in's local shape as rank, d0, d1, d2, d3 (rank <= 4).
  llvm::SmallVector<mlir::Value> collectiveArgs(mlir::Value in, mlir::Value out,
                                                bool withElemBytes);

  /// Shapes of (ranked tensor) values: the element count, the last
  /// dimension, dimension `d`, and the bytes of one element.
  static int64_t numElements(mlir::Value v);
  static int64_t lastDim(mlir::Value v);
  static int64_t dim(mlir::Value v, int64_t d);
  static int64_t elemBytes(mlir::Value v);
};

/// The address of the sprt_attention_args bundle (sprt/abi.def) of an
/// attention op (tfm.attention, dist.ring_attention and their backwards,
/// which share these attributes): q's rows and batch, the heads, rotary,
/// dropout and masks, the mesh axes that split q's batch (dim 1) and heads
/// (dim 2), and `seqAxis`, the one that splits the sequence in zigzag order
/// (-1: none).
template <typename AttentionOpT>
mlir::Value attentionArgs(RuntimeEmitter &e, AttentionOpT o, mlir::Value q,
                          int32_t seqAxis) {
  return e.bundle(
      "sprt_attention_args",
      {e.i64(e.dim(q, 0)), e.i64(e.dim(q, 1)), e.i64(o.getNumHeads()),
       e.i64(o.getNumKvHeads()), e.i64(o.getHeadDim()), e.i64(o.getRotaryDim()),
       e.f64(o.getRotaryTheta().convertToDouble()),
       e.f64(o.getDropoutRate().convertToDouble()), e.i64(o.getDropoutStream()),
       e.i32(o.getCausal()),
       e.i32(runtimeDocumentsCode(o.getDocumentCausal(), o.getPositions())),
       e.i32(e.splitAxis(q, 1)), e.i32(e.splitAxis(q, 2)), e.i32(seqAxis)});
}

/// Attaches RuntimeLoweringOpInterface to every tfm op (forward, gradient
/// and optimizer ops) and every dist op a step may contain, as external
/// models. seqpar::registerAllDialects calls this.
void registerRuntimeLoweringModels(mlir::DialectRegistry &registry);
/// The two halves of it, one per dialect.
void registerTfmRuntimeLoweringModels(mlir::DialectRegistry &registry);
void registerDistRuntimeLoweringModels(mlir::DialectRegistry &registry);

} // namespace seqpar

#include "seqpar/Conversion/RuntimeLoweringInterface.h.inc"

namespace seqpar {
/// The external model of an op whose lowering is the function `Lower`.
template <typename OpT, mlir::LogicalResult (*Lower)(OpT, RuntimeEmitter &)>
struct FunctionLowering
    : RuntimeLoweringOpInterface::ExternalModel<FunctionLowering<OpT, Lower>,
                                                OpT> {
  mlir::LogicalResult lowerToRuntime(mlir::Operation *op,
                                     RuntimeEmitter &emitter) const {
    return Lower(llvm::cast<OpT>(op), emitter);
  }
};
} // namespace seqpar

#endif // SEQPAR_CONVERSION_RUNTIMELOWERINGINTERFACE_H

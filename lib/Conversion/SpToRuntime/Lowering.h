//===- Lowering.h - one step function to calls into libsprt -----*- C++ -*-===//
//
// The lowering of one step function (a tfm.train_step or tfm.forward) of a
// module into an LLVM function with seqpar_step's signature, shared by the
// pass's two cases (StageDispatch.cpp): one function lowered to
// `seqpar_step` itself, or one function per pipeline stage, each lowered to
// its own internal function that the exported `seqpar_step` dispatches to
// by the rank's pipeline coordinate.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_CONVERSION_SPTORUNTIME_LOWERING_H
#define SEQPAR_LIB_CONVERSION_SPTORUNTIME_LOWERING_H

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace seqpar::sptoruntime {

/// Where a tensor lives at run time.
struct Buffer {
  enum Kind { Arena, Param, Argument } kind;
  int64_t index;      // arena offset, parameter index, or argument number
  int64_t offset = 0; // an argument's: bytes into it (a micro-batch)
  /// An argument's: bytes per micro-batch of a tfm.micro_batch_loop's body
  /// argument, read at the loop's micro-batch (0: a fixed offset). An arena
  /// stash's: bytes per copy.
  int64_t stride = 0;
  /// An arena stash's copies (a lagged loop's forward value its backward
  /// reads): micro-batch i's is copy i mod slots.
  int64_t slots = 1;
};

/// What the lowerings of one module's step functions share.
struct SharedLowering {
  /// Every step function of the module, in stage order (one without
  /// pipeline parallelism).
  llvm::SmallVector<mlir::func::FuncOp> funcs;
  /// The C strings defined so far (trace span names), by text.
  llvm::StringMap<mlir::LLVM::GlobalOp> strings;
  /// The step's run-time hyperparameters (tfm.hyperparameter): (name,
  /// default) by slot of the one table the runtime passes, the union of
  /// those the functions read, in order of first appearance.
  llvm::SmallVector<std::pair<std::string, double>> hyperparameters;
};

class Lowering final : public RuntimeEmitter {
public:
  Lowering(mlir::ModuleOp module, mlir::func::FuncOp func,
           SharedLowering &shared)
      : module(module), func(func), shared(shared), b(module.getContext()),
        ptrTy(mlir::LLVM::LLVMPointerType::get(module.getContext())) {}

  /// Reads the mesh, parameters and signature and places the buffers.
  mlir::LogicalResult plan();
  /// The model description of this function (after plan()): for a module
  /// of one step function, the whole of seqpar_model_json.
  mlir::FailureOr<llvm::json::Object> modelJson();
  /// The model JSON's "attention": the tfm.attention and dist.ring_attention
  /// shapes of the step and of its evaluation step, each once, "backward"
  /// when the step computes the gradient of one, "ring" for a ring's.
  llvm::json::Array attentionJson();
  /// Emits the lowered function `name` (after plan()) with `linkage`.
  mlir::LogicalResult emit(llvm::StringRef name, mlir::LLVM::Linkage linkage);

  mlir::func::FuncOp getFunc() const { return func; }
  dist::MeshOp meshOp() const { return mesh; }
  llvm::ArrayRef<tfm::ParamOp> getParams() const { return params; }
  int64_t getArenaBytes() const { return arenaBytes; }
  unsigned getNumScalars() const { return numScalars; }
  int64_t getMicroBatches() const { return microBatches; }
  /// Takes `eval`, this train step's evaluation step, which runs in the
  /// same arena: the arena (and workspace) grow to hold it, and its
  /// attentions are listed with the step's.
  void addEvalStep(const Lowering &eval) {
    arenaBytes = std::max(arenaBytes, eval.arenaBytes);
    workspaceBytes = std::max(workspaceBytes, eval.workspaceBytes);
    evalFunc = eval.func;
  }

  // RuntimeEmitter, through which each op's RuntimeLoweringOpInterface
  // emits its calls.
  mlir::Value ptr(mlir::Value tensor) override;
  mlir::Value i64(int64_t v) override {
    return b.create<mlir::LLVM::ConstantOp>(loc, b.getI64Type(),
                                            b.getI64IntegerAttr(v));
  }
  mlir::Value i32(int64_t v) override {
    return b.create<mlir::LLVM::ConstantOp>(loc, b.getI32Type(),
                                            b.getI32IntegerAttr(int32_t(v)));
  }
  mlir::Value f64(double v) override {
    return b.create<mlir::LLVM::ConstantOp>(loc, b.getF64Type(),
                                            b.getF64FloatAttr(v));
  }
  mlir::Value null() override {
    return b.create<mlir::LLVM::ZeroOp>(loc, ptrTy);
  }
  mlir::Value hyperparameter(llvm::StringRef name) override;
  int64_t hyperparameterSlot(llvm::StringRef name) override;
  void bindScalar(mlir::Value hostScalar, mlir::Value lowered) override {
    scalars[hostScalar] = lowered;
  }
  mlir::Value scalar(mlir::Value hostScalar) override {
    mlir::Value lowered = scalars.lookup(hostScalar);
    assert(lowered && "a host scalar is used before its op was lowered");
    return lowered;
  }
  void call(llvm::StringRef name, llvm::ArrayRef<mlir::Value> args) override;
  void callAsync(llvm::StringRef name, llvm::ArrayRef<mlir::Value> args,
                 mlir::Operation *waitPoint) override;
  int32_t axisIndex(llvm::StringRef axis) const override;
  int32_t splitAxis(mlir::Value v, int64_t dim) const override;
  int32_t zigzagAxis(mlir::Value v, int64_t dim) const override;
  int64_t paramIndex(llvm::StringRef name) const override {
    return paramIndices.lookup(name);
  }
  mlir::Value paramPointer(int64_t index) override;
  mlir::Value statePointer(int64_t index) override;
  mlir::Value masterPointer(int64_t index) override;
  mlir::Type paramElementType(int64_t index) const override {
    tfm::ParamOp p = params[index]; // a handle: the const is not the IR's
    return p.getType().getElementType();
  }
  llvm::SmallVector<int32_t, 2> zeroShardAxes(mlir::Value grad) const override;
  std::tuple<mlir::Value, mlir::Value, mlir::Value>
  pointerArrays(mlir::ValueRange inputs, mlir::ValueRange results) override;
  std::pair<mlir::Value, mlir::Value>
  pointerArray(mlir::ValueRange tensors) override;
  std::pair<mlir::Value, mlir::Value> workspace(mlir::Operation *op) override;
  mlir::Value bundle(llvm::StringRef name,
                     llvm::ArrayRef<mlir::Value> fields) override;

private:
  // Analysis.
  mlir::LogicalResult checkTypes(mlir::Operation *op);

  // Emission.
  /// A stack array of `n` elements of `element` type (in the entry block
  /// inside a micro-batch loop: an alloca in its body would grow the stack
  /// every micro-batch).
  mlir::Value stackArray(mlir::Type element, int64_t n);
  /// Stores `v` into element `i` of `array` (of `element` type).
  void storeAt(mlir::Value array, mlir::Type element, int64_t i, mlir::Value v);
  /// The runtime function `name` taking `args`, returning `result` (void
  /// when null), declared once per module.
  mlir::LLVM::LLVMFuncOp declare(llvm::StringRef name, mlir::TypeRange args,
                                 mlir::Type result = {});
  mlir::LLVM::CallOp emitCall(llvm::StringRef name,
                              llvm::ArrayRef<mlir::Value> args);
  /// The address of a constant C string `text` (one global per text).
  mlir::Value cString(llvm::StringRef text);
  /// Copies the scalar results out and hands out the gradients' addresses.
  mlir::LogicalResult lowerReturn(mlir::func::ReturnOp r);
  mlir::LogicalResult lower(mlir::Operation *op);
  /// A tfm.micro_batch_loop as an LLVM loop over its micro-batches.
  mlir::LogicalResult lowerLoop(tfm::MicroBatchLoopOp loop);

  mlir::ModuleOp module;
  mlir::func::FuncOp func;
  /// The evaluation step beside this train step (addEvalStep), or null.
  mlir::func::FuncOp evalFunc;
  SharedLowering &shared;
  mlir::OpBuilder b;
  mlir::Type ptrTy;
  mlir::Location loc = mlir::UnknownLoc::get(module.getContext());
  dist::MeshOp mesh;
  llvm::SmallVector<std::string> axes;
  llvm::SmallVector<int64_t> axisSizes;
  llvm::SmallVector<tfm::ParamOp> params;
  llvm::StringMap<int64_t> paramIndices;
  /// The runtime functions declared so far, by name (a lookup in the module
  /// scans it, once per call emitted).
  llvm::StringMap<mlir::LLVM::LLVMFuncOp> declared;
  /// The calls emitted that sprt/abi.def does not declare as they are.
  int64_t abiErrors = 0;
  llvm::DenseMap<mlir::Value, Buffer> buffers;
  /// The lowered values of host scalars (f64, not in device memory).
  llvm::DenseMap<mlir::Value, mlir::Value> scalars;
  /// The arena offset and bytes of each op's workspace.
  llvm::DenseMap<mlir::Operation *, std::pair<int64_t, int64_t>> workspaces;
  int64_t arenaBytes = 0;
  /// The largest workspace of any op.
  int64_t workspaceBytes = 0;
  // The lowered function's arguments and cached parameter pointers.
  mlir::Value arenaArg, paramsArg, scalarsArg, gradsArg, stateArg, hyperArg;
  llvm::SmallVector<mlir::Value, 2> inputArgs;
  llvm::DenseMap<int64_t, mlir::Value> paramPtrs, statePtrs;
  /// Results: the first numScalars are f32 scalars (loss, grad norm), then
  /// (result index, parameter index) of each parameter gradient.
  unsigned numScalars = 0;
  llvm::SmallVector<std::pair<unsigned, int64_t>> gradResults;
  /// The step's micro-batches (sp-micro-batches: the inputs are [M, s, b]),
  /// and the one the ops lowered last belong to (-1: none said yet).
  int64_t microBatches = 1, currentMicroBatch = -1;
  /// The micro-batch (i64) of the tfm.micro_batch_loop being lowered.
  mlir::Value loopIndex;
  /// The handles of the async operations to wait for before each op
  /// (callAsync), in the order they started.
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value, 1>>
      waitsBefore;
};

} // namespace seqpar::sptoruntime

#endif // SEQPAR_LIB_CONVERSION_SPTORUNTIME_LOWERING_H

//===- SpToRuntime.cpp - tfm/dist to calls into libsprt -------------------===//
//
// One call per op, on buffers at fixed arena offsets. Every callee and the
// kinds of its arguments are declared in runtime/include/sprt/abi.def
// (RuntimeAbi.h): a call it does not declare is an error at the op.
// Which call is the op's RuntimeLoweringOpInterface (TfmToRuntime.cpp,
// DistToRuntime.cpp); this pass places the buffers, reads the parameters,
// the mesh and the step's signature, and emits the step around the calls.
// Each op's calls are bracketed by sprt_trace_begin(op name, Hugging Face
// module) / sprt_trace_end() (the program's --trace; they return at once
// without it). The model JSON (ModelJson.cpp) carries what the runtime needs
// besides: the mesh, parameters, arena, planned memory and the step's FLOPs per
// rank.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RuntimeAbi.h"

#include "seqpar/Conversion/Passes.h"
#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/Analysis/RankMemory.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

using namespace seqpar::sptoruntime;

int32_t Lowering::axisIndex(StringRef axis) const {
  for (auto [i, name] : llvm::enumerate(axes))
    if (name == axis)
      return int32_t(i);
  return -1;
}

/// The axis (index) splitting dimension `d` of `v` in zigzag (`zigzag`) or
/// contiguously, or -1.
static int32_t findSplit(const Lowering &l, Value v, int64_t d, bool zigzag) {
  LayoutAttr layout = LayoutAttr::fromType(v.getType());
  if (!layout)
    return -1;
  for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
    Sharding s = layout.getSharding(i);
    if (s.isSplit() && s.dim == d && s.isZigzag() == zigzag)
      return l.axisIndex(axis.getValue());
  }
  return -1;
}

int32_t Lowering::splitAxis(Value v, int64_t d) const {
  return findSplit(*this, v, d, /*zigzag=*/false);
}

int32_t Lowering::zigzagAxis(Value v, int64_t d) const {
  return findSplit(*this, v, d, /*zigzag=*/true);
}

LogicalResult Lowering::checkTypes(Operation *op) {
  // `asStored`: the kernel reads (or writes) this tensor in its own type.
  auto check = [&](Type t, bool asStored) -> LogicalResult {
    // A host scalar: a hyperparameter, passed to kernels by value.
    if (t.isF64())
      return success();
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return op->emitOpError()
             << "cannot be lowered: " << t << " is not a ranked tensor";
    Type et = tensor.getElementType();
    // bf16/f16 storage: the ops that move bytes take the element size, the
    // GEMMs each tensor's element type (StoragePrecisionOpInterface), the
    // elementwise maps their one type (MapsElementsAsStored), the others
    // are made to compute in f32 by sp-legalize-precision; the function's
    // results are read by the runtime in f32.
    bool storage = et.isBF16() || et.isF16();
    if (storage && isa<func::ReturnOp>(op))
      return op->emitOpError()
             << "returns " << et << ": the runtime reads the step's results "
             << "in f32";
    if (storage && isa<ParamUpdateOpInterface>(op))
      return op->emitOpError()
             << "updates a parameter in " << et << ": the runtime's optimizer "
             << "updates f32 parameters (keep f32 master weights)";
    if (storage && !keepsStoragePrecision(op) && !asStored)
      return op->emitOpError()
             << "uses " << et << ", which the runtime computes in f32: run "
             << "sp-legalize-precision first";
    if (isa<FloatType>(et) && !et.isF32() && !storage)
      return op->emitOpError() << "uses " << et << ": the runtime stores f32, "
                               << "bf16 or f16 and computes in f32";
    if (tensor.getRank() > 4)
      return op->emitOpError() << "uses a rank-" << tensor.getRank()
                               << " tensor; the runtime takes rank <= 4";
    // Layouts are read by axis index on the module's mesh.
    if (mesh)
      return verifyLayoutOnMesh(t, mesh, [&]() {
        return op->emitOpError()
               << "cannot be lowered: the layout of " << t << " ";
      });
    return success();
  };
  // An elementwise map's typed kernel reads and writes its one type.
  bool maps = mapsElementsAsStored(op);
  for (OpOperand &use : op->getOpOperands()) {
    Type t = use.get().getType();
    // The input of a fused all-gather + GEMM is gathered as stored.
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (tensor && gathersInStoragePrecision(use) &&
        (tensor.getElementType().isBF16() || tensor.getElementType().isF16()))
      t = tensor.clone(Float32Type::get(op->getContext()));
    if (failed(check(t, maps || readsStoragePrecision(use))))
      return failure();
  }
  for (OpResult result : op->getResults())
    if (failed(check(result.getType(), maps || writesStoragePrecision(result))))
      return failure();
  return success();
}

LogicalResult Lowering::plan() {
  FailureOr<MeshOp> found = getMesh(module);
  if (failed(found))
    return failure();
  mesh = *found;
  if (!mesh) {
    // One rank: a mesh of one axis of size 1 for the runtime.
    axes = {"world"};
    axisSizes = {1};
  } else {
    for (auto [name, size] :
         llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes())) {
      axes.push_back(cast<StringAttr>(name).getValue().str());
      axisSizes.push_back(size);
    }
  }
  for (ParamOp p : module.getOps<ParamOp>()) {
    paramIndices[p.getSymName()] = int64_t(params.size());
    params.push_back(p);
  }
  FunctionType type = func.getFunctionType();
  if (auto m = func->getAttrOfType<IntegerAttr>(
          TfmDialect::MicroBatchesAttrHelper::getNameStr()))
    microBatches = m.getInt();
  // [s, b], or [M, s, b] over M micro-batches.
  auto isTokens = [&](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && r.getElementType().isInteger(64) &&
           (microBatches == 1
                ? r.getRank() == 2
                : r.getRank() == 3 && r.getDimSize(0) == microBatches);
  };
  // (input_ids, labels) -> (loss, [grad_norm,] grad...): scalars first,
  // then parameter gradients (tfm.grad_of), as tfm-autodiff and
  // sp-optimizer build them.
  bool ok = type.getNumInputs() == 2 && isTokens(type.getInput(0)) &&
            isTokens(type.getInput(1)) && type.getNumResults() >= 1;
  for (unsigned i = 0; ok && i < type.getNumResults(); ++i) {
    auto param = func.getResultAttrOfType<FlatSymbolRefAttr>(
        i, TfmDialect::GradOfAttrHelper::getNameStr());
    bool scalar = cast<RankedTensorType>(type.getResult(i)).getRank() == 0;
    if (param && i > 0)
      gradResults.push_back({i, paramIndex(param.getValue())});
    else if (scalar && gradResults.empty())
      ++numScalars;
    else
      ok = false;
  }
  if (!ok)
    return func.emitOpError()
           << "must be (input_ids: [s, b] i64, labels: [s, b] i64) -> "
              "(tensor<f32>, ...) to be lowered"
           << (microBatches > 1
                   ? " ([M, s, b] over M = " + std::to_string(microBatches) +
                         " micro-batches)"
                   : std::string())
           << ", got " << type;
  for (BlockArgument arg : func.getArguments())
    buffers[arg] = {Buffer::Argument, arg.getArgNumber()};
  // The ops in the order they run once: a micro-batch loop, then its body.
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != func)
      ops.push_back(op);
  });
  for (Operation *op : ops)
    if (failed(checkTypes(op)))
      return failure();
  // The offsets sp-plan-buffers chose (checked again here), or without a
  // plan one buffer after the other.
  FailureOr<DenseMap<Value, int64_t>> planned = readBufferPlan(func);
  if (failed(planned))
    return failure();
  for (Operation *opPtr : ops) {
    Operation &op = *opPtr;
    // A loop's body reads micro-batch i of each input in place.
    if (auto loop = dyn_cast<MicroBatchLoopOp>(op))
      for (auto [in, arg] :
           llvm::zip(loop.getInputs(), loop.getBody().getArguments())) {
        auto from = dyn_cast<BlockArgument>(in);
        if (!from || from.getOwner()->getParentOp() != func)
          return loop.emitOpError()
                 << "loops over a value that is not an argument of the "
                    "step; the runtime reads micro-batches of the inputs in "
                    "place";
        buffers[arg] = {Buffer::Argument, from.getArgNumber(), 0,
                        tensorBytes(arg)};
      }
    if (auto get = dyn_cast<GetParamOp>(op)) {
      buffers[get] = {Buffer::Param, paramIndex(get.getName())};
      continue;
    }
    // A micro-batch is read in place: [M, s, b] is M [s, b] blocks.
    if (auto part = dyn_cast<MicroBatchOp>(op)) {
      auto arg = dyn_cast<BlockArgument>(part.getInput());
      if (!arg || arg.getOwner()->getParentOp() != func)
        return part.emitOpError()
               << "reads a micro-batch of a value that is not an argument of "
                  "the step; the runtime reads micro-batches of the inputs "
                  "in place";
      buffers[part] = {Buffer::Argument, arg.getArgNumber(),
                       part.getIndexAttr().getInt() *
                           int64_t(tensorBytes(part.getResult()))};
      continue;
    }
    // Read from the step's hyperparameter table (a block reads each one
    // once: the op's verifier).
    // The table is shared by the pipeline stages' functions: one slot per
    // name, with one default.
    if (auto h = dyn_cast<HyperparameterOp>(op)) {
      std::string name = stringifyHyperparameterKind(h.getKind()).str();
      double value = h.getDefaultValue().convertToDouble();
      auto *slot = llvm::find_if(shared.hyperparameters, [&](const auto &s) {
        return s.first == name;
      });
      if (slot == shared.hyperparameters.end())
        shared.hyperparameters.push_back({name, value});
      else if (slot->second != value)
        return h.emitOpError()
               << "gives hyperparameter '" << name << "' the default " << value
               << " but another step function gives it " << slot->second
               << ": the runtime passes one table";
      continue;
    }
    for (OpResult r : op.getResults()) {
      std::string what = "result #" + std::to_string(r.getResultNumber());
      if (failed(verifyTensorSize(&op, r.getType(), what)))
        return failure();
      int64_t bytes = tensorBytes(r);
      // A stash holds a copy per micro-batch in flight (BufferPlan.h).
      auto loop = dyn_cast<MicroBatchLoopOp>(op.getParentOp());
      int64_t slots = loop ? loop.stashSlots(r) : 1;
      std::optional<int64_t> stride = alignArena(bytes);
      if (slots > 1) {
        std::optional<int64_t> all =
            stride ? llvm::checkedMul<int64_t>(*stride, slots) : std::nullopt;
        if (!all)
          return op.emitOpError()
                 << what << " (" << bytes << " bytes) cannot be placed: its "
                 << slots << " copies exceed int64 bytes";
        bytes = *all;
      }
      int64_t offset = planned->empty() ? arenaBytes : planned->lookup(r);
      // A plan was checked to end within its arena; one buffer after the
      // other may pass int64.
      std::optional<int64_t> end = llvm::checkedAdd<int64_t>(offset, bytes);
      std::optional<int64_t> aligned = alignArena(bytes);
      std::optional<int64_t> next =
          !planned->empty() ? end
          : aligned         ? llvm::checkedAdd<int64_t>(arenaBytes, *aligned)
                            : std::nullopt;
      if (!end || !next)
        return op.emitOpError() << what << " (" << bytes
                                << " bytes) cannot be placed: the arena would "
                                   "exceed int64 bytes";
      buffers[r] = {Buffer::Arena, offset, 0, slots > 1 ? *stride : 0, slots};
      arenaBytes = std::max(arenaBytes, *next);
    }
  }
  // Workspaces: where the plan put them (readBufferPlan checked every one),
  // or after the values.
  bool hasPlan = func->hasAttr(kArenaBytesAttr);
  for (Operation *opPtr : ops) {
    Operation &op = *opPtr;
    int64_t bytes = dist::workspaceBytes(&op);
    if (bytes == 0)
      continue;
    int64_t offset = hasPlan ? *workspaceOffset(&op) : arenaBytes;
    std::optional<int64_t> end = llvm::checkedAdd<int64_t>(offset, bytes);
    std::optional<int64_t> aligned = alignArena(bytes);
    std::optional<int64_t> next =
        hasPlan   ? end
        : aligned ? llvm::checkedAdd<int64_t>(arenaBytes, *aligned)
                  : std::nullopt;
    if (!end || !next)
      return op.emitOpError() << "workspace (" << bytes
                              << " bytes) cannot be placed: the arena would "
                                 "exceed int64 bytes";
    workspaces[&op] = {offset, bytes};
    arenaBytes = std::max(arenaBytes, *next);
    workspaceBytes = std::max(workspaceBytes, bytes);
  }
  return success();
}

LLVM::LLVMFuncOp Lowering::declare(StringRef name, TypeRange args,
                                   Type result) {
  // The callee as sprt/abi.def declares it; a call that differs is an error
  // at the op lowered (lower() fails it).
  std::string mismatch = abiMismatch(name, args, result, b.getContext());
  if (!mismatch.empty()) {
    emitError(loc) << "convert-sp-to-runtime: the lowering " << mismatch;
    ++abiErrors;
  }
  LLVM::LLVMFuncOp &f = declared[name];
  if (f)
    return f;
  if ((f = module.lookupSymbol<LLVM::LLVMFuncOp>(name)))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  const RuntimeFunction *declaredFn = lookupRuntimeFunction(name);
  auto fnTy = declaredFn ? llvmFunctionType(*declaredFn, b.getContext())
                         : LLVM::LLVMFunctionType::get(
                               result ? result
                                      : LLVM::LLVMVoidType::get(b.getContext()),
                               SmallVector<Type>(args));
  return f = b.create<LLVM::LLVMFuncOp>(loc, name, fnTy);
}

LLVM::CallOp Lowering::emitCall(StringRef name, ArrayRef<Value> args) {
  SmallVector<Type> types;
  for (Value a : args)
    types.push_back(a.getType());
  return b.create<LLVM::CallOp>(loc, declare(name, types), args);
}

void Lowering::call(StringRef name, ArrayRef<Value> args) {
  emitCall(name, args);
}

void Lowering::callAsync(StringRef name, ArrayRef<Value> args,
                         Operation *waitPoint) {
  SmallVector<Type> types;
  for (Value a : args)
    types.push_back(a.getType());
  auto handle =
      b.create<LLVM::CallOp>(loc, declare(name, types, b.getI64Type()), args);
  waitsBefore[waitPoint].push_back(handle.getResult());
}

Value Lowering::cString(StringRef text) {
  LLVM::GlobalOp &global = shared.strings[text];
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    std::string value = text.str();
    value.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
    global = b.create<LLVM::GlobalOp>(
        loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
        "sprt_str_" + std::to_string(shared.strings.size() - 1),
        b.getStringAttr(value));
  }
  return b.create<LLVM::AddressOfOp>(loc, global);
}

/// The Hugging Face module an op comes from (the first name of its
/// location, as sp-import sets it), or "".
static std::string moduleOf(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l)) {
      name = n.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// The pointer at entry `index` of a table of pointers, loaded once at the
/// start of the step.
static Value tableEntry(OpBuilder &b, Location loc, Type ptrTy, Value table,
                        int64_t index, DenseMap<int64_t, Value> &cache) {
  Value &cached = cache[index];
  if (!cached) {
    // The function's entry block: it dominates a loop's blocks and what
    // follows them.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&b.getInsertionBlock()->getParent()->front());
    Value i = b.create<LLVM::ConstantOp>(loc, b.getI64Type(),
                                         b.getI64IntegerAttr(index));
    Value slot = b.create<LLVM::GEPOp>(loc, ptrTy, ptrTy, table, ValueRange{i});
    cached = b.create<LLVM::LoadOp>(loc, ptrTy, slot);
  }
  return cached;
}

Value Lowering::stackArray(Type element, int64_t n) {
  OpBuilder::InsertionGuard guard(b);
  if (loopIndex)
    b.setInsertionPointToStart(&b.getInsertionBlock()->getParent()->front());
  return b.create<LLVM::AllocaOp>(loc, ptrTy, element, i64(n));
}

void Lowering::storeAt(Value array, Type element, int64_t i, Value v) {
  Value slot =
      b.create<LLVM::GEPOp>(loc, ptrTy, element, array, ValueRange{i64(i)});
  b.create<LLVM::StoreOp>(loc, v, slot);
}

std::tuple<Value, Value, Value> Lowering::pointerArrays(ValueRange inputs,
                                                        ValueRange results) {
  int64_t n = inputs.size();
  Value ins = stackArray(ptrTy, n), outs = stackArray(ptrTy, n),
        sizes = stackArray(b.getI64Type(), n);
  for (int64_t i = 0; i < n; ++i) {
    storeAt(ins, ptrTy, i, ptr(inputs[i]));
    storeAt(outs, ptrTy, i, ptr(results[i]));
    storeAt(sizes, b.getI64Type(), i, i64(numElements(inputs[i])));
  }
  return {ins, outs, sizes};
}

std::pair<Value, Value> Lowering::pointerArray(ValueRange tensors) {
  int64_t n = tensors.size();
  Value ptrs = stackArray(ptrTy, n), sizes = stackArray(b.getI64Type(), n);
  for (int64_t i = 0; i < n; ++i) {
    storeAt(ptrs, ptrTy, i, ptr(tensors[i]));
    storeAt(sizes, b.getI64Type(), i, i64(numElements(tensors[i])));
  }
  return {ptrs, sizes};
}

Value Lowering::bundle(StringRef name, ArrayRef<Value> fields) {
  SmallVector<Type> types;
  for (Value f : fields)
    types.push_back(f.getType());
  std::string mismatch = bundleMismatch(name, types, b.getContext());
  if (!mismatch.empty()) {
    emitError(loc) << "convert-sp-to-runtime: the lowering " << mismatch;
    ++abiErrors;
    return null();
  }
  auto structTy = llvmStructType(*lookupRuntimeBundle(name), b.getContext());
  Value at;
  {
    // In the entry block: one slot per call, never one per micro-batch.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&b.getInsertionBlock()->getParent()->front());
    at = b.create<LLVM::AllocaOp>(loc, ptrTy, structTy, i64(1), 8);
  }
  for (auto [i, f] : llvm::enumerate(fields)) {
    Value slot = b.create<LLVM::GEPOp>(
        loc, ptrTy, structTy, at,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    b.create<LLVM::StoreOp>(loc, f, slot);
  }
  return at;
}

std::pair<Value, Value> Lowering::workspace(Operation *op) {
  auto it = workspaces.find(op);
  if (it == workspaces.end())
    return {null(), i64(0)};
  Value at = b.create<LLVM::GEPOp>(loc, ptrTy, b.getI8Type(), arenaArg,
                                   ValueRange{i64(it->second.first)});
  return {at, i64(it->second.second)};
}

SmallVector<int32_t, 2> Lowering::zeroShardAxes(Value grad) const {
  SmallVector<int32_t, 2> axes;
  LayoutAttr l = LayoutAttr::fromType(grad.getType());
  MeshOp m = mesh; // a handle: the const of this method is not the IR's
  if (!func->hasAttr(TfmDialect::ZeroAttrHelper::getNameStr()) || !m || !l)
    return axes;
  // The data and context axes, in mesh order (sp-sync-grads nests the
  // slices so: the first outermost).
  for (Attribute a : m.getAxisNames()) {
    StringRef name = cast<StringAttr>(a).getValue();
    std::optional<AxisRole> role = m.getAxisRole(name);
    if ((role == AxisRole::data || role == AxisRole::context) &&
        l.getSharding(name) == Sharding::split(0))
      axes.push_back(axisIndex(name));
  }
  return axes;
}

int64_t Lowering::hyperparameterSlot(StringRef name) {
  int64_t slot = 0;
  while (shared.hyperparameters[slot].first != name)
    ++slot;
  return slot;
}

Value Lowering::hyperparameter(StringRef name) {
  int64_t slot = hyperparameterSlot(name);
  Value at = b.create<LLVM::GEPOp>(loc, ptrTy, b.getF64Type(), hyperArg,
                                   ValueRange{i64(slot)});
  return b.create<LLVM::LoadOp>(loc, b.getF64Type(), at);
}

Value Lowering::paramPointer(int64_t index) {
  return tableEntry(b, loc, ptrTy, paramsArg, index, paramPtrs);
}

Value Lowering::statePointer(int64_t index) {
  return tableEntry(b, loc, ptrTy, stateArg, index, statePtrs);
}

Value Lowering::masterPointer(int64_t index) {
  auto optimizer = func->getAttrOfType<OptimizerKindAttr>(
      TfmDialect::OptimizerAttrHelper::getNameStr());
  int64_t moments =
      optimizer && optimizer.getValue() == OptimizerKind::adamw ? 2 : 0;
  return statePointer(moments * int64_t(params.size()) + index);
}

Value Lowering::ptr(Value tensor) {
  Buffer buf = buffers.lookup(tensor);
  switch (buf.kind) {
  case Buffer::Argument:
    if (buf.stride != 0) {
      assert(loopIndex && "a loop's argument read outside the loop");
      Value at = b.create<LLVM::MulOp>(loc, loopIndex, i64(buf.stride));
      return b.create<LLVM::GEPOp>(loc, ptrTy, b.getI8Type(),
                                   inputArgs[buf.index], ValueRange{at});
    }
    if (buf.offset == 0)
      return inputArgs[buf.index];
    return b.create<LLVM::GEPOp>(loc, ptrTy, b.getI8Type(),
                                 inputArgs[buf.index],
                                 ValueRange{i64(buf.offset)});
  case Buffer::Param:
    return paramPointer(buf.index);
  case Buffer::Arena: {
    if (buf.slots == 1)
      return b.create<LLVM::GEPOp>(loc, ptrTy, b.getI8Type(), arenaArg,
                                   ValueRange{i64(buf.index)});
    // A stash: the copy of the micro-batch the loop is at.
    assert(loopIndex && "a stash read outside its loop");
    // One op a statement: the IR's order does not hang on the order in
    // which the compiler evaluates arguments.
    Value slot = b.create<LLVM::URemOp>(loc, loopIndex, i64(buf.slots));
    Value bytes = b.create<LLVM::MulOp>(loc, slot, i64(buf.stride));
    Value at = b.create<LLVM::AddOp>(loc, i64(buf.index), bytes);
    return b.create<LLVM::GEPOp>(loc, ptrTy, b.getI8Type(), arenaArg,
                                 ValueRange{at});
  }
  }
  llvm_unreachable("unknown buffer kind");
}

LogicalResult Lowering::lowerReturn(func::ReturnOp r) {
  // Scalars are copied out; gradients stay in the arena and their
  // addresses are handed out (read before the next step).
  // Through the runtime: the value is in device memory.
  for (unsigned i = 0; i < numScalars; ++i) {
    Value slot = b.create<LLVM::GEPOp>(loc, ptrTy, b.getF32Type(), scalarsArg,
                                       ValueRange{i64(i)});
    call("sprt_copy_scalar_to_host", {slot, ptr(r.getOperand(i))});
  }
  for (auto [j, result] : llvm::enumerate(gradResults)) {
    Value slot = b.create<LLVM::GEPOp>(loc, ptrTy, ptrTy, gradsArg,
                                       ValueRange{i64(int64_t(j))});
    b.create<LLVM::StoreOp>(loc, ptr(r.getOperand(result.first)), slot);
  }
  return success();
}

LogicalResult Lowering::lower(Operation *op) {
  loc = op->getLoc();
  // The async operations that complete here (they started earlier).
  for (Value handle : waitsBefore.lookup(op))
    emitCall("sprt_wait", {handle});
  auto lowering = dyn_cast<RuntimeLoweringOpInterface>(op);
  if (!lowering && !isa<func::ReturnOp>(op))
    return op->emitOpError() << "has no runtime lowering (it does not "
                                "implement RuntimeLoweringOpInterface)";
  // The runtime's micro-batch (dropout masks, position ids) follows the
  // ops': told where it changes.
  if (auto in = op->getAttrOfType<IntegerAttr>(
          TfmDialect::InMicroBatchAttrHelper::getNameStr());
      in && in.getInt() != currentMicroBatch) {
    if (in.getInt() >= microBatches)
      return op->emitOpError()
             << "belongs to micro-batch " << in.getInt() << " of a step of "
             << microBatches << " (tfm.micro_batches)";
    currentMicroBatch = in.getInt();
    emitCall("sprt_set_micro_batch",
             {i64(currentMicroBatch), i64(microBatches)});
  }
  // The op's calls between sprt_trace_begin(name, module) and
  // sprt_trace_end(): a span of the program's --trace (nothing without it).
  // An op that calls nothing has no span.
  Block *block = b.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  LogicalResult lowered = lowering ? lowering.lowerToRuntime(*this)
                                   : lowerReturn(cast<func::ReturnOp>(op));
  // What the op emitted (table loads go to the start of the block).
  Operation *first =
      last ? last->getNextNode() : (block->empty() ? nullptr : &block->front());
  bool calls = false;
  for (Operation *o = first; o && !calls; o = o->getNextNode())
    calls = isa<LLVM::CallOp>(o);
  if (calls) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(first);
    emitCall("sprt_trace_begin", {cString(op->getName().getStringRef()),
                                  cString(moduleOf(op->getLoc()))});
  }
  if (calls)
    emitCall("sprt_trace_end", {});
  return abiErrors ? failure() : lowered;
}

LogicalResult Lowering::emit(StringRef name, LLVM::Linkage linkage) {
  // seqpar_step's signature (sprt/abi.def): (arena, params, input_ids,
  // labels, scalars, grads, state, hyperparameters).
  b.setInsertionPointToEnd(module.getBody());
  auto fnTy =
      llvmFunctionType(*lookupRuntimeFunction("seqpar_step"), b.getContext());
  auto fn = b.create<LLVM::LLVMFuncOp>(func.getLoc(), name, fnTy, linkage);
  Block *entry = fn.addEntryBlock(b);
  arenaArg = entry->getArgument(0);
  paramsArg = entry->getArgument(1);
  inputArgs = {entry->getArgument(2), entry->getArgument(3)};
  scalarsArg = entry->getArgument(4);
  gradsArg = entry->getArgument(5);
  stateArg = entry->getArgument(6);
  hyperArg = entry->getArgument(7);
  b.setInsertionPointToStart(entry);
  // The step's values the kernels read on the device (the learning rate,
  // the optimizer's step count, the dropout salt) before any of them runs:
  // with no hyperparameters too, or a device's dropout would draw step 1's
  // masks every step.
  call("sprt_upload_step_values",
       {hyperArg, i64(int64_t(shared.hyperparameters.size()))});
  for (Operation &op : func.getBody().getOps()) {
    auto loop = dyn_cast<MicroBatchLoopOp>(op);
    if (failed(loop ? lowerLoop(loop) : lower(&op)))
      return failure();
  }
  b.create<LLVM::ReturnOp>(loc, ValueRange());
  return success(abiErrors == 0);
}

//===- ModelJson.cpp - the program's model description
//---------------------===//
//
// Lowering::modelJson: the JSON a program carries for the runtime
// (seqpar_model_json; its keys declared in sprt/model_json.def): the mesh,
// the shapes of the batch, the parameters and how they are split, the
// gradients and their slicing, the arena and the step's FLOPs and memory
// plan.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RuntimeAbi.h"

#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/Analysis/RankMemory.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;
using namespace seqpar::sptoruntime;

/// The optimizer sp-optimizer gave the step (`tfm.optimizer`), by its name,
/// or "" (a forward-only program).
static StringRef optimizerName(func::FuncOp func) {
  auto optimizer = func->getAttrOfType<OptimizerKindAttr>(
      TfmDialect::OptimizerAttrHelper::getNameStr());
  return optimizer ? stringifyEnum(optimizer.getValue()) : StringRef();
}

/// The safetensors name of a parameter's element type (the runtime stores,
/// loads and dumps the parameter in it).
static StringRef safetensorsDtype(Type t) {
  if (t.isF32())
    return "F32";
  if (t.isBF16())
    return "BF16";
  if (t.isF16())
    return "F16";
  if (t.isF64())
    return "F64";
  return "unknown";
}

llvm::json::Array Lowering::attentionJson() {
  llvm::json::Array list;
  llvm::StringMap<size_t> seen;
  // What sprt_op_attention_prepare readies (sprt_attention_args without
  // rotary and the dropout stream: a plan does not depend on them).
  auto add = [&](auto o, Value q, bool backward, bool ring) {
    llvm::json::Object entry{
        {"rows", dim(q, 0)},
        {"batch", dim(q, 1)},
        {"heads", int64_t(o.getNumHeads())},
        {"kv_heads", int64_t(o.getNumKvHeads())},
        {"head_dim", int64_t(o.getHeadDim())},
        {"dropout", o.getDropoutRate().convertToDouble()},
        {"causal", bool(o.getCausal())},
        {"document_causal",
         runtimeDocumentsCode(o.getDocumentCausal(), o.getPositions())},
        {"batch_axis", splitAxis(q, 1)},
        {"head_axis", splitAxis(q, 2)},
        {"seq_axis", zigzagAxis(q, 0)}};
    if (ring)
      entry["ring"] = true;
    // The same arguments are the same entry: its text is the key.
    std::string key;
    llvm::raw_string_ostream(key)
        << llvm::json::Value(llvm::json::Object(entry));
    auto [at, added] = seen.try_emplace(key, list.size());
    if (added) {
      entry["backward"] = backward;
      list.push_back(std::move(entry));
    } else if (backward) {
      (*list[at->second].getAsObject())["backward"] = true;
    }
  };
  // The step's, then its evaluation step's (dropout 0: other plans).
  for (func::FuncOp f : {func, evalFunc}) {
    if (!f)
      continue;
    f.walk([&](Operation *op) {
      if (auto o = dyn_cast<AttentionOp>(op))
        add(o, o.getQ(), false, false);
      else if (auto o = dyn_cast<AttentionGradOp>(op))
        add(o, o.getQ(), true, false);
      else if (auto o = dyn_cast<dist::RingAttentionOp>(op))
        add(o, o.getQ(), false, true);
      else if (auto o = dyn_cast<dist::RingAttentionGradOp>(op))
        add(o, o.getQ(), true, true);
    });
  }
  return list;
}

FailureOr<llvm::json::Object> Lowering::modelJson() {
  // The parameters whose f32 master slice the optimizer keeps (on any
  // pipeline stage).
  llvm::DenseSet<StringRef> masters;
  for (func::FuncOp f : shared.funcs)
    f.walk([&](Operation *op) {
      if (auto update = dyn_cast<ParamUpdateOpInterface>(op))
        if (op->hasAttr("master"))
          masters.insert(update.getParamAttr().getValue());
    });
  llvm::json::Array paramJson;
  for (ParamOp p : params) {
    auto t = cast<RankedTensorType>(p.getType());
    LayoutAttr layout = LayoutAttr::fromType(t);
    SmallVector<int64_t> local(t.getShape());
    llvm::json::Array splits;
    if (layout)
      for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
        Sharding s = layout.getSharding(i);
        if (!s.isSplit())
          continue;
        int32_t a = axisIndex(axis.getValue());
        local[s.dim] /= axisSizes[a];
        splits.push_back(llvm::json::Object{
            {"dim", s.dim}, {"axis", a}, {"blocks", s.blocks}});
      }
    llvm::json::Object o{{"name", p.getSymName()},
                         {"shape", llvm::json::Array(t.getShape())},
                         {"local_shape", llvm::json::Array(local)},
                         {"init", stringifyInitKind(p.getInit())},
                         {"dtype", safetensorsDtype(t.getElementType())},
                         {"splits", std::move(splits)}};
    if (p.getInitStd())
      o["std"] = p.getInitStd()->convertToDouble();
    if (masters.contains(p.getSymName()))
      o["master"] = true;
    paramJson.push_back(std::move(o));
  }
  llvm::json::Array gradJson, gradShardJson;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [result, param] : gradResults) {
    gradJson.push_back(param);
    // -1 (not sliced), the axis, or the axes nested outermost first.
    SmallVector<int32_t, 2> axes = zeroShardAxes(ret.getOperand(result));
    if (axes.size() > 1)
      gradShardJson.push_back(llvm::json::Array(axes));
    else
      gradShardJson.push_back(axes.empty() ? -1 : axes[0]);
  }
  Value ids = func.getArgument(0);
  // [s, b], or [M, s, b]: the micro-batch's global [s, b].
  int64_t seqDim = microBatches > 1 ? 1 : 0;
  int32_t batchAxis = splitAxis(ids, seqDim + 1);
  auto readsIds = [&](Value v) {
    auto part = v.getDefiningOp<MicroBatchOp>();
    auto arg = dyn_cast<BlockArgument>(v);
    auto loop = arg ? dyn_cast<MicroBatchLoopOp>(arg.getOwner()->getParentOp())
                    : MicroBatchLoopOp();
    return v == ids || (part && part.getInput() == ids) ||
           (loop && loop.getInputs()[arg.getArgNumber()] == ids);
  };
  int64_t vocab = 0;
  SmallVector<EmbeddingOp> embeddings;
  func.walk([&](EmbeddingOp e) { embeddings.push_back(e); });
  for (auto e : embeddings)
    if (readsIds(e.getIds())) {
      int32_t a = splitAxis(e.getTable(), 0);
      vocab = dim(e.getTable(), 0) * (a < 0 ? 1 : axisSizes[a]);
    }
  // The FLOPs one rank's step performs (Flops.h: GEMMs and attention), and
  // those of the ops recompute cloned into the backward: the program
  // reports FLOP/s and MFU from them.
  // A micro-batch loop's body runs once per micro-batch.
  int64_t flops = 0, recomputeFlops = 0;
  WalkResult counted = func.walk([&](Operation *op) {
    auto loop = op->getParentOfType<MicroBatchLoopOp>();
    std::optional<int64_t> n = dist::opFlops(op); // null: said why
    if (!n)
      return WalkResult::interrupt();
    if (loop)
      n = llvm::checkedMul<int64_t>(*n, loop.getMicroBatches());
    std::optional<int64_t> sum =
        n ? llvm::checkedAdd<int64_t>(flops, *n) : std::nullopt;
    if (!sum) {
      op->emitOpError() << "the FLOPs of the step overflow int64 at this op";
      return WalkResult::interrupt();
    }
    flops = *sum;
    if (op->hasAttr(TfmDialect::RecomputedAttrHelper::getNameStr()))
      recomputeFlops += *n; // at most flops
    return WalkResult::advance();
  });
  if (counted.wasInterrupted())
    return failure();
  // The step's hyperparameter table: slot i holds hyperparameters[i].
  llvm::json::Array hyperJson;
  for (const auto &[name, value] : shared.hyperparameters)
    hyperJson.push_back(llvm::json::Object{{"name", name}, {"default", value}});
  llvm::json::Object model{
      {"model_type",
       module->hasAttr(TfmDialect::ModelTypeAttrHelper::getNameStr())
           ? module
                 ->getAttrOfType<StringAttr>(
                     TfmDialect::ModelTypeAttrHelper::getNameStr())
                 .getValue()
           : StringRef()},
      {"mesh", llvm::json::Object{{"axes", llvm::json::Array(axes)},
                                  {"sizes", llvm::json::Array(axisSizes)}}},
      {"seq", dim(ids, seqDim) * (zigzagAxis(ids, seqDim) < 0
                                      ? 1
                                      : axisSizes[zigzagAxis(ids, seqDim)])},
      {"batch",
       dim(ids, seqDim + 1) * (batchAxis < 0 ? 1 : axisSizes[batchAxis])},
      // The step's batch is micro_batches times `batch` (sp-micro-batches).
      {"micro_batches", microBatches},
      {"batch_axis", batchAxis},
      // The axis splitting the inputs' sequence in zigzag (context
      // parallelism), or -1.
      {"seq_axis", zigzagAxis(ids, seqDim)},
      {"vocab", vocab},
      {"arena_bytes", arenaBytes},
      {"flops_per_step", flops},
      {"recompute_flops_per_step", recomputeFlops},
      {"workspace_bytes", workspaceBytes},
      {"params", std::move(paramJson)},
      {"scalars", int64_t(numScalars)},
      {"grads", std::move(gradJson)},
      {"grad_shard_axes", std::move(gradShardJson)},
      {"hyperparameters", std::move(hyperJson)},
      {"optimizer", optimizerName(func)}};
  if (llvm::json::Array attention = attentionJson(); !attention.empty())
    model["attention"] = std::move(attention);
  // The model's compute precision (tfm-precision / tfm-master-weights): its
  // parameters may be f32 master weights of a bf16 model.
  if (auto precision = module->getAttrOfType<StringAttr>(
          TfmDialect::PrecisionAttrHelper::getNameStr()))
    model["precision"] = precision.getValue();
  // The Hugging Face config sp-import read (verified to be a JSON object),
  // which --export-hf writes back.
  if (auto config = module->getAttrOfType<StringAttr>(
          TfmDialect::HfConfigAttrHelper::getNameStr())) {
    if (llvm::Expected<llvm::json::Value> parsed =
            llvm::json::parse(config.getValue()))
      model["hf_config"] = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
  }
  // How the family's Hugging Face checkpoints name tensors, for
  // --init-from: the prefix its base model drops, and the buffers that are
  // no parameters.
  if (auto prefix = module->getAttrOfType<StringAttr>(
          TfmDialect::HfBasePrefixAttrHelper::getNameStr()))
    model["hf_base_prefix"] = prefix.getValue();
  if (auto buffers = module->getAttrOfType<ArrayAttr>(
          TfmDialect::HfBuffersAttrHelper::getNameStr())) {
    llvm::json::Array suffixes;
    for (StringAttr s : buffers.getAsRange<StringAttr>())
      suffixes.push_back(s.getValue());
    model["hf_buffers"] = std::move(suffixes);
  }
  // The device memory the runtime will allocate besides its pools and the
  // backend's scratch, as planned: printed by the program next to what it
  // measures.
  FailureOr<DeviceBytes> planned = deviceBytes(func, arenaBytes);
  if (failed(planned))
    return failure();
  model["planned"] =
      llvm::json::Object{{"parameters", planned->parameters},
                         {"optimizer_state", planned->optimizerState},
                         {"tokens", planned->tokens},
                         {"arena", planned->arena},
                         {"peak_bytes", planned->total}};
  return model;
}

//===- SpReportMemory.cpp - sp-report=memory ------------------------------===//
//
// Activation memory per layer (the IR's and Korthikanti et al. 2022's
// accounting, without recompute and under a recompute policy), the FLOPs a
// policy adds to the step, and one rank's planned device memory by category
// (RankMemory.h).
//
//===----------------------------------------------------------------------===//

#include "SpReport.h"

#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/Analysis/RankMemory.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/LayerIndex.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <map>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

namespace {
/// Bytes in the IR's accounting and the paper's, the paper's both without
/// recompute and under the policy of the paper column.
struct Bytes {
  int64_t ir = 0, paper = 0, paperPolicy = 0;
};

struct MemoryEntry {
  Bytes total;
  std::map<std::string, int64_t> paperByKind, irByKind;
};

/// Per-layer sums, layer -1 standing for everything outside the layers.
template <typename T> using PerLayer = std::map<int64_t, T>;
} // namespace

static int64_t elementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

/// A value the backward reads again. A column GEMM's input that was
/// all-gathered is kept as the shard and re-gathered in the backward
/// (Korthikanti et al. 2022, section 4.2.2), so the shard is what stays live.
static Value keptValue(Value v) {
  // sp-legalize-precision widens a stored bf16 / f16 value to f32 around
  // the op that reads it: the stored value is what is kept.
  if (auto convert = v.getDefiningOp<ConvertOp>())
    if (convert.getInput().getType().getElementTypeBitWidth() <
        convert.getType().getElementTypeBitWidth())
      v = convert.getInput();
  if (auto gather = v.getDefiningOp<AllGatherOp>())
    return gather.getInput();
  return v;
}

/// The ops of a step in the order they run once: a micro-batch loop's body
/// after the loop op (one micro-batch, as the step without micro-batches).
static SmallVector<Operation *> stepOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != func)
      ops.push_back(op);
  });
  return ops;
}

/// The first op of a train step's backward (tfm-autodiff marks the seed).
static Operation *backwardBegin(func::FuncOp func) {
  for (Operation *op : stepOps(func))
    if (op->hasAttr(tfm::TfmDialect::BackwardBeginsAttrHelper::getNameStr()))
      return op;
  return nullptr;
}

/// Bytes of the forward values a train step's backward reads: what really
/// stays live from the forward to the backward (parameters and the token
/// inputs excluded), per layer: a value counts in the highest layer whose
/// backward (or recomputed forward) reads it, so under full recompute a
/// layer's input counts in that layer; layer -1 holds the values only the
/// backward outside the layers reads. `total` is their sum.
static LogicalResult keptByTrainStep(func::FuncOp func, Operation *begin,
                                     PerLayer<int64_t> &perLayer,
                                     int64_t &total) {
  llvm::MapVector<Value, int64_t> kept; // value -> layer
  bool backward = false;
  SmallVector<Operation *> ops = stepOps(func);
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = int64_t(i);
  for (Operation *opPtr : ops) {
    Operation &op = *opPtr;
    backward |= &op == begin;
    if (!backward || isa<func::ReturnOp>(op))
      continue;
    int64_t layer = layerOf(op.getLoc());
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && position.lookup(def) >= position.lookup(begin))
        continue; // a backward value
      // Parameters (their converted copies included) and host scalars; a
      // micro-batch loop's sums (read by the peeled last micro-batch) are
      // gradients, not activations.
      if (!def || tfm::isParameterRead(v) ||
          isa<HyperparameterOp, MicroBatchLoopOp>(def))
        continue;
      auto [it, inserted] = kept.try_emplace(v, layer);
      if (!inserted)
        it->second = std::max(it->second, layer);
    }
  }
  total = 0;
  for (auto [v, layer] : kept) {
    std::optional<int64_t> bytes = checkedByteSize(v);
    // Every layer's sum is at most the total.
    if (failed(addBytes(total, bytes, v.getDefiningOp(),
                        "the forward values the backward keeps")))
      return failure();
    perLayer[layer] += *bytes;
  }
  return success();
}

/// The paper's bytes of `t` (2-byte activations, 1-byte masks) and the IR's
/// (its own element type; 0 for tensors internal to the op, which seqpar's
/// backward recomputes), or an error at `op`.
static LogicalResult savedBytes(const SavedTensor &t, Value kept, Operation *op,
                                int64_t &ir, int64_t &paper) {
  int64_t n = t.numElements;
  std::optional<int64_t> irBytes = 0, paperBytes = n;
  if (kept) {
    auto type = cast<RankedTensorType>(kept.getType());
    n = type.getNumElements();
    irBytes = llvm::checkedMul<int64_t>(n, elementBytes(type.getElementType()));
  }
  if (t.kind == SavedTensor::Kind::Statistics)
    paperBytes = 0;
  else if (t.kind != SavedTensor::Kind::Mask)
    paperBytes = llvm::checkedMul<int64_t>(n, 2);
  if (!irBytes || !paperBytes)
    return op->emitOpError()
           << "the activation memory report overflows int64 bytes at this op";
  ir = *irBytes;
  paper = *paperBytes;
  return success();
}

/// The values a layer reads from outside it (its input: the residual stream
/// entering it, the SP shard where it is gathered inside), floating point,
/// not parameters: what full recompute keeps of the layer.
static void layerInputs(Operation *op, int64_t layer,
                        DenseMap<Operation *, int64_t> &layers,
                        SetVector<Value> &inputs) {
  for (Value v : op->getOperands()) {
    v = keptValue(v);
    Operation *def = v.getDefiningOp();
    if (!def || tfm::isParameterRead(v) ||
        !isa<FloatType>(cast<ShapedType>(v.getType()).getElementType()))
      continue;
    auto [it, inserted] = layers.try_emplace(def, 0);
    if (inserted)
      it->second = layerOf(def->getLoc());
    if (it->second != layer)
      inputs.insert(v);
  }
}

/// Per layer, what the forward part of `func` keeps for its backward. The
/// paper's column under `policy`: "selective" drops the tensors internal to
/// the attention core (softmax output, attention dropout mask and output,
/// which the paper's selective recompute recomputes); "full" keeps only
/// each layer's inputs.
static LogicalResult activationReport(func::FuncOp func, RecomputePolicy policy,
                                      PerLayer<MemoryEntry> &layers,
                                      Bytes &total) {
  DenseSet<Value> counted;
  DenseMap<Operation *, int64_t> layerOfOp;
  PerLayer<SetVector<Value>> inputs;
  Operation *begin = backwardBegin(func);
  for (Operation *opPtr : stepOps(func)) {
    Operation &op = *opPtr;
    if (&op == begin)
      break; // the forward part only
    // tfm's ops that compute no activation: a run-time hyperparameter (a
    // loss-scaled step's loss scale, read by its seed) is a host scalar, a
    // fill (a pipeline stage's zero loss) a constant, a micro-batch loop
    // and its end control flow (its body follows). Every other tfm and
    // dist op declares what its backward keeps (SavedForBackwardOpInterface:
    // the collectives nothing, the fused collective GEMMs their input).
    if (!isa<TfmDialect, DistDialect>(op.getDialect()) ||
        isa<HyperparameterOp, FillOp, MicroBatchLoopOp, YieldOp>(op))
      continue;
    auto decl = dyn_cast<SavedForBackwardOpInterface>(op);
    if (!decl)
      return op.emitOpError()
             << "declares nothing about what its backward keeps";
    SmallVector<SavedTensor> saved;
    decl.getSavedForBackward(saved);
    int64_t layer = layerOf(op.getLoc());
    layerOfOp[&op] = layer;
    if (layer >= 0 && policy == RecomputePolicy::full)
      layerInputs(&op, layer, layerOfOp, inputs[layer]);
    MemoryEntry &entry = layers[layer];
    for (const SavedTensor &t : saved) {
      Value v = t.value ? keptValue(t.value) : Value();
      // Function arguments (the batch) are the caller's, kept anyway.
      if (v && (isa<BlockArgument>(v) || !counted.insert(v).second))
        continue;
      int64_t ir = 0, paper = 0;
      if (failed(savedBytes(t, v, &op, ir, paper)))
        return failure();
      // Internal tensors (softmax output, dropout masks) are what the
      // paper's implementation keeps; seqpar's backward recomputes them
      // (masks from the counter-based generator, probabilities from q and
      // k), so they count in the paper's accounting only.
      bool attentionCore = !t.value && isa<AttentionOp>(op);
      int64_t underPolicy =
          policy == RecomputePolicy::none || layer < 0             ? paper
          : policy == RecomputePolicy::selective && !attentionCore ? paper
                                                                   : 0;
      // Every sum below is at most the totals, so checking these suffices.
      if (failed(addBytes(total.ir, ir, &op, "the activation memory report")) ||
          failed(addBytes(total.paper, paper, &op,
                          "the activation memory report (paper accounting)")) ||
          failed(addBytes(total.paperPolicy, underPolicy, &op,
                          "the activation memory report (paper accounting)")))
        return failure();
      entry.total.ir += ir;
      entry.total.paper += paper;
      entry.total.paperPolicy += underPolicy;
      entry.paperByKind[t.what.str()] += paper;
      entry.irByKind[t.what.str()] += ir;
    }
  }
  // Full recompute keeps each layer's inputs, 2 bytes an element.
  for (auto &[layer, values] : inputs)
    for (Value v : values) {
      std::optional<int64_t> paper = llvm::checkedMul<int64_t>(
          cast<RankedTensorType>(v.getType()).getNumElements(), 2);
      if (failed(addBytes(total.paperPolicy, paper, v.getDefiningOp(),
                          "the activation memory report (paper accounting)")))
        return failure();
      layers[layer].total.paperPolicy += *paper;
    }
  return success();
}

FailureOr<SmallVector<func::FuncOp>> dist::programFunctions(ModuleOp module) {
  for (StringRef marker : {TfmDialect::TrainStepAttrHelper::getNameStr(),
                           TfmDialect::ForwardAttrHelper::getNameStr()}) {
    FailureOr<SmallVector<Operation *>> fs =
        TfmDialect::getMarkedFunctions(module, marker, "sp-report");
    if (failed(fs))
      return failure();
    if (!fs->empty())
      return llvm::to_vector(llvm::map_range(
          *fs, [](Operation *f) { return cast<func::FuncOp>(f); }));
  }
  SmallVector<func::FuncOp> only;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    if (!only.empty())
      return SmallVector<func::FuncOp>();
    only.push_back(f);
  }
  return only;
}

/// FLOPs of the forward, the backward and the ops recompute cloned into the
/// backward (tfm.recomputed), and the fraction of the step the latter are.
static FailureOr<llvm::json::Object> flopsReport(func::FuncOp func) {
  int64_t forward = 0, backward = 0, recompute = 0, step = 0;
  // An op of micro-batch i (tfm.in_micro_batch: unrolled or peeled) is
  // backward once i's seed ran; any other (a loop's body among them) once
  // a seed ran.
  DenseSet<int64_t> backwardOf;
  bool anyBackward = false;
  for (Operation *opPtr : stepOps(func)) {
    Operation &op = *opPtr;
    auto in = op.getAttrOfType<IntegerAttr>(
        TfmDialect::InMicroBatchAttrHelper::getNameStr());
    if (op.hasAttr(TfmDialect::BackwardBeginsAttrHelper::getNameStr())) {
      anyBackward = true;
      backwardOf.insert(in ? in.getInt() : -1);
    }
    bool inBackward = in ? backwardOf.contains(in.getInt()) : anyBackward;
    // A micro-batch loop's body runs once per micro-batch.
    std::optional<int64_t> n = opFlops(&op); // null: said why
    if (!n)
      return failure();
    if (auto loop = op.getParentOfType<MicroBatchLoopOp>())
      n = llvm::checkedMul<int64_t>(*n, loop.getMicroBatches());
    int64_t &part = op.hasAttr(TfmDialect::RecomputedAttrHelper::getNameStr())
                        ? recompute
                    : inBackward ? backward
                                 : forward;
    std::optional<int64_t> sum =
        n ? llvm::checkedAdd<int64_t>(step, *n) : std::nullopt;
    if (!sum)
      return op.emitOpError() << "the FLOPs of the step overflow int64 at "
                                 "this op";
    step = *sum; // every part is at most the step
    part += *n;
  }
  return llvm::json::Object{{"forward", forward},
                            {"backward", backward},
                            {"recompute", recompute},
                            {"step", step}};
}

/// One rank's planned device memory at the program's peak.
static FailureOr<llvm::json::Object> rankReport(func::FuncOp func) {
  FailureOr<DeviceBytes> device = deviceBytes(func);
  if (failed(device))
    return failure();
  FailureOr<PeakLive> peak = peakLive(func);
  if (failed(peak))
    return failure();
  llvm::json::Object o{{"function", func.getSymName()},
                       {"parameters", device->parameters},
                       {"optimizer_state", device->optimizerState},
                       {"tokens", device->tokens},
                       {"arena_bytes", device->arena},
                       {"arena_planned_by", device->arenaFromPlan
                                                ? "sp-plan-buffers"
                                                : "sp-report"},
                       {"activations", peak->activations},
                       {"activations_peak_bytes", peak->mostActivations},
                       {"gradients", peak->gradients},
                       {"workspaces", peak->workspaces},
                       {"peak_live_bytes", peak->total},
                       {"total", device->total}};
  if (peak->at) {
    std::string at = peak->at->getName().getStringRef().str();
    if (int64_t layer = layerOf(peak->at->getLoc()); layer >= 0)
      at += " in layer " + std::to_string(layer);
    o["peak_at"] = at;
  }
  return o;
}

LogicalResult dist::memoryReport(ModuleOp module,
                                 std::optional<RecomputePolicy> paperPolicy,
                                 llvm::json::Object &report) {
  // The attribute's value was verified (TfmAttributes.cpp).
  auto policyAttr = module->getAttrOfType<RecomputePolicyAttr>(
      TfmDialect::RecomputeAttrHelper::getNameStr());
  RecomputePolicy policy =
      policyAttr ? policyAttr.getValue() : RecomputePolicy::none;
  RecomputePolicy paperColumn = paperPolicy.value_or(policy);
  report["recompute"] = stringifyEnum(policy);
  report["paper_recompute"] = stringifyEnum(paperColumn);

  PerLayer<MemoryEntry> entries;
  Bytes total;
  // The step's activations: an evaluation step (tfm-eval-step) runs apart.
  for (auto func : module.getOps<func::FuncOp>())
    if (!func->hasAttr(TfmDialect::EvalStepAttrHelper::getNameStr()) &&
        failed(activationReport(func, paperColumn, entries, total)))
      return failure();
  llvm::json::Array layers;
  for (auto &[layer, e] : entries) {
    llvm::json::Object kinds, differences;
    for (auto &[what, bytes] : e.paperByKind) {
      kinds[what] = bytes;
      // Where the IR's kept tensors differ from the paper's: the ones
      // seqpar recomputes (0 bytes in the IR) and any kept at another
      // element width than the paper's 2 bytes (1 for masks).
      if (int64_t ir = e.irByKind[what]; ir != bytes)
        differences[what] = bytes - ir;
    }
    llvm::json::Object o{{"ir_bytes", e.total.ir},
                         {"paper_bytes", e.total.paper},
                         {"paper_bytes_recompute", e.total.paperPolicy},
                         {"paper_bytes_by_kind", std::move(kinds)},
                         {"paper_minus_ir_by_kind", std::move(differences)}};
    if (layer < 0) {
      report["outside_layers"] = std::move(o);
    } else {
      o["layer"] = layer;
      layers.push_back(std::move(o));
    }
  }
  report["total"] =
      llvm::json::Object{{"ir_bytes", total.ir},
                         {"paper_bytes", total.paper},
                         {"paper_bytes_recompute", total.paperPolicy}};
  // What the train step, as compiled (recompute included), really keeps.
  for (auto func : module.getOps<func::FuncOp>())
    if (Operation *begin = backwardBegin(func)) {
      PerLayer<int64_t> perLayer;
      int64_t kept = 0;
      if (failed(keptByTrainStep(func, begin, perLayer, kept)))
        return failure();
      report["train_step_kept_bytes"] = kept;
      for (llvm::json::Value &l : layers) {
        llvm::json::Object *o = l.getAsObject();
        o->try_emplace("kept_bytes", perLayer[*o->getInteger("layer")]);
      }
      if (llvm::json::Object *o = report.getObject("outside_layers"))
        o->try_emplace("kept_bytes", perLayer[-1]);
    }
  report["layers"] = std::move(layers);

  FailureOr<SmallVector<func::FuncOp>> program = programFunctions(module);
  if (failed(program))
    return failure();
  // One entry per pipeline stage (a rank runs one stage's function); the
  // top level is the stage whose rank needs the most device memory.
  llvm::json::Array stages;
  int64_t worst = -1;
  for (func::FuncOp f : *program) {
    FailureOr<llvm::json::Object> flops = flopsReport(f);
    if (failed(flops))
      return failure();
    FailureOr<llvm::json::Object> rank = rankReport(f);
    if (failed(rank))
      return failure();
    int64_t step = *flops->getInteger("step");
    int64_t total = *rank->getInteger("total");
    llvm::json::Object entry{
        {"stage", TfmDialect::getPipelineStage(f)},
        {"extra_flops_fraction",
         step ? double(*flops->getInteger("recompute")) / double(step) : 0.0},
        {"flops", std::move(*flops)},
        {"per_rank_peak_bytes", std::move(*rank)}};
    if (total > worst) {
      worst = total;
      for (StringRef key :
           {"extra_flops_fraction", "flops", "per_rank_peak_bytes"})
        report[key] = *entry.get(key);
    }
    stages.push_back(std::move(entry));
  }
  if (stages.size() > 1)
    report["stages"] = std::move(stages);
  return success();
}

//===- TfmAttributes.cpp - the attributes passes exchange -----------------===//
//
// The discardable attributes of TfmDialect.td, checked where they appear:
// each on the kind of operation (or function argument / result) it is
// declared for, with the type it is declared with.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace seqpar::tfm;

/// `what` for a diagnostic: "'tfm.zero'".
static std::string quoted(NamedAttribute attr) {
  return ("'" + attr.getName().getValue() + "'").str();
}

LogicalResult TfmDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto expect = [&](bool placed, StringRef where) -> LogicalResult {
    if (!placed)
      return op->emitOpError()
             << "carries " << quoted(attr) << ", which belongs on " << where;
    return success();
  };
  auto unit = [&]() -> LogicalResult {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << quoted(attr) << " must be a unit attribute";
    return success();
  };
  bool isFunction = isa<FunctionOpInterface>(op);
  if (name == ForwardAttrHelper::getNameStr() ||
      name == TrainStepAttrHelper::getNameStr() ||
      name == EvalStepAttrHelper::getNameStr() ||
      name == ZeroAttrHelper::getNameStr())
    return failure(failed(expect(isFunction, "a function")) || failed(unit()));
  if (name == BackwardBeginsAttrHelper::getNameStr())
    return failure(failed(expect(isa<FillOp>(op), "a tfm.fill")) ||
                   failed(unit()));
  if (name == OptimizerAttrHelper::getNameStr()) {
    if (failed(expect(isFunction, "a function")))
      return failure();
    if (!isa<OptimizerKindAttr>(attr.getValue()))
      return op->emitOpError()
             << quoted(attr) << " must be #tfm.optimizer<adamw | sgd>, got "
             << attr.getValue();
    return success();
  }
  if (name == ModelTypeAttrHelper::getNameStr() ||
      name == HfBasePrefixAttrHelper::getNameStr()) {
    if (failed(expect(isa<ModuleOp>(op), "the module")))
      return failure();
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError() << quoted(attr) << " must be a string";
    return success();
  }
  if (name == HfBuffersAttrHelper::getNameStr()) {
    if (failed(expect(isa<ModuleOp>(op), "the module")))
      return failure();
    auto value = dyn_cast<ArrayAttr>(attr.getValue());
    if (!value || !llvm::all_of(value, [](Attribute a) {
          auto s = dyn_cast<StringAttr>(a);
          return s && !s.getValue().empty();
        }))
      return op->emitOpError()
             << quoted(attr) << " must be an array of non-empty strings";
    return success();
  }
  if (name == HfConfigAttrHelper::getNameStr()) {
    if (failed(expect(isa<ModuleOp>(op), "the module")))
      return failure();
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value)
      return op->emitOpError() << quoted(attr) << " must be a string";
    llvm::Expected<llvm::json::Value> parsed =
        llvm::json::parse(value.getValue());
    if (!parsed)
      return op->emitOpError()
             << quoted(attr)
             << " is not JSON: " << llvm::toString(parsed.takeError());
    if (!parsed->getAsObject())
      return op->emitOpError() << quoted(attr) << " must be a JSON object";
    return success();
  }
  if (name == RecomputeAttrHelper::getNameStr()) {
    if (failed(expect(isa<ModuleOp>(op), "the module")))
      return failure();
    if (!isa<RecomputePolicyAttr>(attr.getValue()))
      return op->emitOpError()
             << quoted(attr)
             << " must be #tfm.recompute<none | selective | full>, got "
             << attr.getValue();
    return success();
  }
  // The model's compute precision (tfm-precision, tfm-master-weights).
  if (name == PrecisionAttrHelper::getNameStr()) {
    if (failed(expect(isa<ModuleOp>(op), "the module")))
      return failure();
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || !llvm::is_contained<StringRef>({"f32", "bf16", "f16"},
                                                 value.getValue()))
      return op->emitOpError()
             << quoted(attr) << " must be \"f32\", \"bf16\" or \"f16\", got "
             << attr.getValue();
    return success();
  }
  if (name == LossScalingAttrHelper::getNameStr())
    return failure(failed(expect(isa<ModuleOp>(op), "the module")) ||
                   failed(unit()));
  // A recomputed copy of a forward op: any op (tfm or dist) outside the
  // module's and functions' own level.
  if (name == RecomputedAttrHelper::getNameStr())
    return failure(failed(expect(!isa<ModuleOp, FunctionOpInterface>(op),
                                 "an op of a function")) ||
                   failed(unit()));
  // Micro-batches and pipeline stages: counts (>= 1) on a function, and
  // indices (>= 0): an op's micro-batch, a function's stage (below the
  // function's number of stages).
  bool microBatch = name == MicroBatchesAttrHelper::getNameStr() ||
                    name == InMicroBatchAttrHelper::getNameStr();
  bool stage = name == PipelineStageAttrHelper::getNameStr() ||
               name == PipelineStagesAttrHelper::getNameStr();
  if (microBatch || stage) {
    bool count = name == MicroBatchesAttrHelper::getNameStr() ||
                 name == PipelineStagesAttrHelper::getNameStr();
    bool onFunction = count || stage;
    if (failed(expect(onFunction ? isFunction
                                 : !isa<ModuleOp, FunctionOpInterface>(op),
                      onFunction ? "a function" : "an op of a function")))
      return failure();
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(64) ||
        value.getInt() < (count ? 1 : 0))
      return op->emitOpError()
             << quoted(attr) << " must be an i64 " << (count ? ">= 1" : ">= 0")
             << ", got " << attr.getValue();
    if (stage && !count) {
      auto stages = op->getAttrOfType<IntegerAttr>(
          PipelineStagesAttrHelper::getNameStr());
      if (!stages)
        return op->emitOpError() << quoted(attr) << " needs '"
                                 << PipelineStagesAttrHelper::getNameStr()
                                 << "' on the same function";
      if (value.getInt() >= stages.getInt())
        return op->emitOpError()
               << quoted(attr) << " = " << value.getInt()
               << " is not below the number of stages " << stages.getInt();
    }
    return success();
  }
  // Gradient accounting (tfm-autodiff's record, sp-verify's proof).
  if (name == ContributesAttrHelper::getNameStr()) {
    if (failed(expect(!isa<ModuleOp, FunctionOpInterface>(op),
                      "an op of a function")))
      return failure();
    auto entries = dyn_cast<ArrayAttr>(attr.getValue());
    if (!entries || entries.size() != op->getNumResults())
      return op->emitOpError()
             << quoted(attr) << " must be an array with one entry per result ("
             << op->getNumResults() << ")";
    for (Attribute e : entries) {
      auto tag = dyn_cast<StringAttr>(e);
      if (!isa<UnitAttr>(e) && !(tag && parseContributionTag(tag)))
        return op->emitOpError()
               << quoted(attr) << ": entry " << e
               << " is neither unit nor a contribution \"param#use\"";
    }
    return success();
  }
  if (name == GradUsesAttrHelper::getNameStr()) {
    if (failed(expect(isFunction, "a function")))
      return failure();
    auto uses = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!uses)
      return op->emitOpError() << quoted(attr) << " must be a dictionary";
    for (NamedAttribute u : uses) {
      auto n = dyn_cast<IntegerAttr>(u.getValue());
      if (!n || n.getValue().isNegative())
        return op->emitOpError()
               << quoted(attr) << ": the uses of '" << u.getName().getValue()
               << "' must be an integer >= 0";
    }
    return success();
  }
  if (name == GradOfAttrHelper::getNameStr() ||
      name == NameAttrHelper::getNameStr())
    return op->emitOpError()
           << "carries " << quoted(attr) << ", which belongs on a function "
           << (name == NameAttrHelper::getNameStr() ? "argument" : "result");
  return op->emitOpError() << "carries the unknown attribute " << quoted(attr)
                           << " (see the tfm dialect's attributes)";
}

StringAttr seqpar::tfm::makeContributionTag(MLIRContext *ctx, StringRef param,
                                            unsigned use) {
  return StringAttr::get(ctx, param + "#" + Twine(use));
}

std::optional<Contribution> seqpar::tfm::parseContributionTag(StringAttr tag) {
  auto [param, use] = tag.getValue().rsplit('#');
  unsigned n;
  if (param.empty() || use.getAsInteger(10, n))
    return std::nullopt;
  return Contribution{param, n};
}

StringAttr seqpar::tfm::getContributionTag(OpResult r) {
  auto entries = r.getOwner()->getAttrOfType<ArrayAttr>(
      TfmDialect::ContributesAttrHelper::getNameStr());
  if (!entries || entries.size() != r.getOwner()->getNumResults())
    return StringAttr();
  return dyn_cast<StringAttr>(entries[r.getResultNumber()]);
}

void seqpar::tfm::setContributionTag(OpResult r, StringAttr tag) {
  Operation *op = r.getOwner();
  StringRef name = TfmDialect::ContributesAttrHelper::getNameStr();
  auto unit = UnitAttr::get(op->getContext());
  SmallVector<Attribute> entries(op->getNumResults(), unit);
  if (auto old = op->getAttrOfType<ArrayAttr>(name);
      old && old.size() == entries.size())
    llvm::copy(old, entries.begin());
  entries[r.getResultNumber()] = tag ? Attribute(tag) : Attribute(unit);
  if (llvm::all_of(entries, [](Attribute e) { return isa<UnitAttr>(e); }))
    op->removeAttr(name);
  else
    op->setAttr(name, ArrayAttr::get(op->getContext(), entries));
}

DictionaryAttr seqpar::tfm::contextOf(Operation *op) {
  NamedAttrList attrs(op->getDiscardableAttrDictionary());
  attrs.erase(TfmDialect::ContributesAttrHelper::getNameStr());
  return attrs.getDictionary(op->getContext());
}

LogicalResult TfmDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  if (attr.getName().getValue() != NameAttrHelper::getNameStr())
    return op->emitOpError()
           << "argument #" << argIndex << " carries " << quoted(attr)
           << ", which is not an argument attribute";
  if (!isa<StringAttr>(attr.getValue()))
    return op->emitOpError() << "argument #" << argIndex << ": " << quoted(attr)
                             << " must be a string";
  return success();
}

LogicalResult TfmDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  if (attr.getName().getValue() != GradOfAttrHelper::getNameStr())
    return op->emitOpError()
           << "result #" << resultIndex << " carries " << quoted(attr)
           << ", which is not a result attribute";
  if (!isa<FlatSymbolRefAttr>(attr.getValue()))
    return op->emitOpError()
           << "result #" << resultIndex << ": " << quoted(attr)
           << " must name a tfm.param (@name)";
  return success();
}

FailureOr<Operation *> TfmDialect::getMarkedFunction(Operation *module,
                                                     StringRef marker,
                                                     StringRef pass) {
  Operation *found = nullptr;
  for (Region &region : module->getRegions())
    for (Block &block : region)
      for (Operation &op : block) {
        if (!isa<FunctionOpInterface>(op) || !op.hasAttr(marker))
          continue;
        if (found)
          return op.emitOpError()
                 << pass << ": a second function marked " << marker
                 << " (the first is @"
                 << cast<FunctionOpInterface>(found).getName() << ")";
        found = &op;
      }
  return found;
}

int64_t TfmDialect::getPipelineStage(Operation *fn) {
  auto a =
      fn->getAttrOfType<IntegerAttr>(PipelineStageAttrHelper::getNameStr());
  return a ? a.getInt() : 0;
}

int64_t TfmDialect::getPipelineStages(Operation *fn) {
  auto a =
      fn->getAttrOfType<IntegerAttr>(PipelineStagesAttrHelper::getNameStr());
  return a ? a.getInt() : 1;
}

FailureOr<SmallVector<Operation *>>
TfmDialect::getMarkedFunctions(Operation *module, StringRef marker,
                               StringRef pass) {
  SmallVector<Operation *> found;
  for (Region &region : module->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (isa<FunctionOpInterface>(op) && op.hasAttr(marker))
          found.push_back(&op);
  if (found.size() < 2 && (found.empty() || getPipelineStages(found[0]) == 1))
    return found;
  int64_t stages = getPipelineStages(found[0]);
  SmallVector<Operation *> byStage(stages, nullptr);
  for (Operation *fn : found) {
    auto name = cast<FunctionOpInterface>(fn).getName();
    if (!fn->hasAttr(PipelineStageAttrHelper::getNameStr()) ||
        getPipelineStages(fn) != stages)
      return fn->emitOpError()
             << pass << ": functions marked " << marker
             << " must be one per pipeline stage, each with '"
             << PipelineStageAttrHelper::getNameStr() << "' and '"
             << PipelineStagesAttrHelper::getNameStr() << "' = " << stages
             << " (@" << name << " is not)";
    Operation *&slot = byStage[getPipelineStage(fn)];
    if (slot)
      return fn->emitOpError()
             << pass << ": a second function marked " << marker
             << " for pipeline stage " << getPipelineStage(fn)
             << " (the first is @" << cast<FunctionOpInterface>(slot).getName()
             << ")";
    slot = fn;
  }
  for (int64_t s = 0; s < stages; ++s)
    if (!byStage[s])
      return found[0]->emitOpError()
             << pass << ": no function marked " << marker
             << " for pipeline stage " << s << " of " << stages;
  return byStage;
}

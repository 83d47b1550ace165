//===- StageDispatch.cpp - the pass: one step, or one per pipeline stage --===//
//
// A module holds one step function (a tfm.train_step, else a tfm.forward),
// lowered to the exported `seqpar_step`, or, with pipeline parallelism
// (sp-pipeline), one per pipeline stage k (tfm.pipeline_stage = k of
// tfm.pipeline_stages = P), each lowered to the internal
// `seqpar_step_stage<k>` with seqpar_step's signature, and an exported
// `seqpar_step` that calls the one of the rank's coordinate on the mesh's
// pipeline axis (sprt_axis_coord), then completes the sends the stage
// started (sprt_complete_sends: a send never waits for its recv).
//
// A training program's evaluation step (tfm-eval-step: one tfm.eval_step
// function, or one per stage) is lowered the same way to the exported
// `seqpar_eval` (dispatching to `seqpar_eval_stage<k>` likewise), with
// seqpar_step's signature, one micro-batch's tokens and the loss alone. It
// runs in the step's arena: the model JSON's arena_bytes and
// workspace_bytes (a stage's, with a pipeline) cover both functions, and
// "eval_arena_bytes" gives the evaluation step's own arena (the largest
// stage's).
//
// The model JSON of a pipeline adds to the description of one step:
//   "pipeline_axis"  the pipeline axis's index in the mesh;
//   "stages"         per stage, what the runtime of a rank of that stage
//                    uses: arena_bytes, workspace_bytes, flops_per_step,
//                    recompute_flops_per_step, planned, grads,
//                    grad_shard_axes and attention of its function;
//   per parameter "stages": the stages whose function reads it (the first
//                    is its owner, whose copy dumps and checkpoints read);
//                    a parameter no stage reads is held by stage 0.
// Its top-level figures stay meaningful for the program as a whole:
// arena_bytes, workspace_bytes, flops_per_step and recompute_flops_per_step
// are the largest of any stage, `planned` is the stage's with the largest
// planned peak, `vocab` the embedding's (stage 0's), and `grads` /
// `grad_shard_axes` list every parameter's gradient once, in stage order,
// as its owner stage returns it (the list --dump-grads writes).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "RuntimeAbi.h"

#include "seqpar/Conversion/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace seqpar {
#define GEN_PASS_DEF_CONVERTSPTORUNTIMEPASS
#include "seqpar/Conversion/Passes.h.inc"
} // namespace seqpar

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;
using namespace seqpar::sptoruntime;

/// Defines `const char seqpar_model_json[]` holding `model`, with its format
/// version (sprt/model_json.def) and whether the program has an evaluation
/// step.
static void emitModelJson(ModuleOp module, llvm::json::Object model) {
  model["format_version"] = modelFormatVersion();
  model["eval_step"] = model.get("eval_arena_bytes") != nullptr;
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(std::move(model));
  os.flush();
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  json.push_back('\0');
  auto arrayTy = LLVM::LLVMArrayType::get(b.getI8Type(), json.size());
  b.create<LLVM::GlobalOp>(module.getLoc(), arrayTy, /*isConstant=*/true,
                           LLVM::Linkage::External, programData().front(),
                           b.getStringAttr(json));
}

/// The names of the parameters `fn` reads or updates.
static llvm::DenseSet<StringRef> paramsOf(func::FuncOp fn) {
  llvm::DenseSet<StringRef> names;
  fn.walk([&](Operation *op) {
    if (auto get = dyn_cast<GetParamOp>(op))
      names.insert(get.getName());
    else if (auto update = dyn_cast<ParamUpdateOpInterface>(op))
      names.insert(update.getParamAttr().getValue());
  });
  return names;
}

/// The stage functions must agree on what the runtime reads once for all
/// of them: the step's signature, its scalars and its optimizer.
static LogicalResult checkStagesAgree(ArrayRef<Lowering *> stages) {
  Lowering &first = *stages.front();
  StringRef optimizerAttr = TfmDialect::OptimizerAttrHelper::getNameStr();
  for (Lowering *s : stages.drop_front()) {
    func::FuncOp fn = s->getFunc(), f0 = first.getFunc();
    auto differs = [&](StringRef what) {
      return fn.emitOpError()
             << "convert-sp-to-runtime: pipeline stage "
             << TfmDialect::getPipelineStage(fn) << " (@" << fn.getName()
             << ") and stage 0 (@" << f0.getName() << ") differ in " << what
             << ": the runtime calls every stage with one signature";
    };
    if (fn.getFunctionType().getInputs() != f0.getFunctionType().getInputs())
      return differs("their arguments");
    if (s->getNumScalars() != first.getNumScalars())
      return differs("their scalar results (the loss, the gradient norm)");
    if (s->getMicroBatches() != first.getMicroBatches())
      return differs("their micro-batches");
    if (fn->getAttr(optimizerAttr) != f0->getAttr(optimizerAttr))
      return differs("their optimizer");
  }
  return success();
}

/// The model JSON of a pipeline of `stages` (StageDispatch.cpp's header).
static FailureOr<llvm::json::Object> pipelineJson(ArrayRef<Lowering *> stages,
                                                  int32_t pipelineAxis) {
  SmallVector<llvm::json::Object> records;
  for (Lowering *s : stages) {
    FailureOr<llvm::json::Object> o = s->modelJson();
    if (failed(o))
      return failure();
    records.push_back(std::move(*o));
  }
  llvm::json::Object model = records.front();
  auto integer = [](const llvm::json::Object &o, StringRef key) {
    return *o.getInteger(key);
  };
  // The largest figures of any stage.
  for (StringRef key : {"arena_bytes", "workspace_bytes", "flops_per_step",
                        "recompute_flops_per_step", "vocab"}) {
    int64_t most = 0;
    for (const llvm::json::Object &r : records)
      most = std::max(most, integer(r, key));
    model[key] = most;
  }
  // Every gradient once, as its owner (the first stage returning it) does.
  llvm::json::Array grads, shardAxes;
  llvm::SmallSetVector<int64_t, 16> seen;
  for (const llvm::json::Object &r : records) {
    const llvm::json::Array &g = *r.getArray("grads");
    const llvm::json::Array &a = *r.getArray("grad_shard_axes");
    for (size_t i = 0; i < g.size(); ++i)
      if (seen.insert(*g[i].getAsInteger())) {
        grads.push_back(g[i]);
        shardAxes.push_back(a[i]);
      }
  }
  model["grads"] = std::move(grads);
  model["grad_shard_axes"] = std::move(shardAxes);
  model["pipeline_axis"] = pipelineAxis;
  // Per parameter, the stages reading it; per stage, its record.
  SmallVector<llvm::DenseSet<StringRef>> reads;
  for (Lowering *s : stages)
    reads.push_back(paramsOf(s->getFunc()));
  ArrayRef<ParamOp> params = stages.front()->getParams();
  llvm::json::Array &paramJson = *model.getArray("params");
  SmallVector<SmallVector<int64_t>> held(stages.size());
  for (auto [i, param] : llvm::enumerate(params)) {
    ParamOp p = param; // a handle: the const is not the IR's
    llvm::json::Array on;
    for (size_t k = 0; k < stages.size(); ++k)
      if (reads[k].contains(p.getSymName())) {
        on.push_back(int64_t(k));
        held[k].push_back(int64_t(i));
      }
    if (on.empty()) {
      on.push_back(int64_t(0));
      held[0].push_back(int64_t(i));
    }
    (*paramJson[i].getAsObject())["stages"] = std::move(on);
  }
  llvm::json::Array stageJson;
  for (auto [k, r] : llvm::enumerate(records)) {
    // The parameters this stage's ranks hold: the planned parameter bytes
    // are theirs (the other stages' are not allocated).
    llvm::json::Object planned = *r.getObject("planned");
    int64_t paramBytes = 0;
    for (int64_t i : held[k]) {
      ParamOp p = params[i]; // a handle: the const is not the IR's
      const llvm::json::Object &pj = *paramJson[i].getAsObject();
      int64_t n = 1;
      for (const llvm::json::Value &d : *pj.getArray("local_shape"))
        n *= *d.getAsInteger();
      paramBytes +=
          n * int64_t(p.getType().getElementType().getIntOrFloatBitWidth() / 8);
    }
    int64_t peak = integer(planned, "peak_bytes") -
                   integer(planned, "parameters") + paramBytes;
    planned["parameters"] = paramBytes;
    planned["peak_bytes"] = peak;
    stageJson.push_back(llvm::json::Object{
        {"arena_bytes", *r.get("arena_bytes")},
        {"workspace_bytes", *r.get("workspace_bytes")},
        {"flops_per_step", *r.get("flops_per_step")},
        {"recompute_flops_per_step", *r.get("recompute_flops_per_step")},
        {"planned", std::move(planned)},
        {"grads", *r.get("grads")},
        {"grad_shard_axes", *r.get("grad_shard_axes")}});
    if (const llvm::json::Value *attention = r.get("attention"))
      (*stageJson.back().getAsObject())["attention"] = *attention;
  }
  // The top level's planned memory: the stage's with the largest peak.
  size_t peakStage = 0;
  auto peakOf = [&](size_t k) {
    return integer(*stageJson[k].getAsObject()->getObject("planned"),
                   "peak_bytes");
  };
  for (size_t k = 1; k < stageJson.size(); ++k)
    if (peakOf(k) > peakOf(peakStage))
      peakStage = k;
  model["planned"] = *stageJson[peakStage].getAsObject()->get("planned");
  model["stages"] = std::move(stageJson);
  return model;
}

/// `name` (`seqpar_step`, `seqpar_eval`): calls the stage function of the
/// rank's pipeline coordinate, then completes the sends it started.
static void emitDispatcher(ModuleOp module, StringRef name,
                           ArrayRef<LLVM::LLVMFuncOp> stages,
                           int32_t pipelineAxis) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  Location loc = module.getLoc();
  b.setInsertionPointToStart(module.getBody());
  auto declare = [&](StringRef name) {
    if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return f;
    return b.create<LLVM::LLVMFuncOp>(
        loc, name, llvmFunctionType(*lookupRuntimeFunction(name), ctx));
  };
  LLVM::LLVMFuncOp coord = declare("sprt_axis_coord");
  LLVM::LLVMFuncOp complete = declare("sprt_complete_sends");
  b.setInsertionPointToEnd(module.getBody());
  LLVM::LLVMFuncOp first = stages.front();
  auto fn = b.create<LLVM::LLVMFuncOp>(loc, name, first.getFunctionType());
  Block *entry = fn.addEntryBlock(b);
  Block *done = b.createBlock(&fn.getBody());
  SmallVector<Block *> cases;
  SmallVector<APInt> values;
  for (auto [k, s] : llvm::enumerate(stages)) {
    LLVM::LLVMFuncOp stage = s;
    cases.push_back(b.createBlock(done));
    b.create<LLVM::CallOp>(loc, stage, entry->getArguments());
    b.create<LLVM::BrOp>(loc, ValueRange(), done);
    values.push_back(APInt(64, k));
  }
  b.setInsertionPointToStart(entry);
  Value axis = b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                          b.getI32IntegerAttr(pipelineAxis));
  Value at = b.create<LLVM::CallOp>(loc, coord, ValueRange{axis}).getResult();
  // A coordinate outside 0 .. P-1 cannot be: the axis has P ranks.
  SmallVector<ValueRange> noOperands(cases.size(), ValueRange());
  b.create<LLVM::SwitchOp>(loc, at, done, ValueRange(), values,
                           BlockRange(cases), noOperands);
  b.setInsertionPointToStart(done);
  b.create<LLVM::CallOp>(loc, complete, ValueRange());
  b.create<LLVM::ReturnOp>(loc, ValueRange());
}

/// Emits each of `stages` as the internal `<name>_stage<k>` and the
/// exported `name` dispatching to them.
static LogicalResult emitStaged(ModuleOp module, StringRef name,
                                ArrayRef<Lowering *> stages,
                                int32_t pipelineAxis) {
  SmallVector<LLVM::LLVMFuncOp> lowered;
  for (auto [k, s] : llvm::enumerate(stages)) {
    std::string stage = (name + "_stage" + Twine(k)).str();
    if (failed(s->emit(stage, LLVM::Linkage::Internal)))
      return failure();
    lowered.push_back(module.lookupSymbol<LLVM::LLVMFuncOp>(stage));
  }
  emitDispatcher(module, name, lowered, pipelineAxis);
  return success();
}

/// Plans the evaluation steps `evals` beside the steps `stages` (as many,
/// stage k's beside stage k's): each takes one micro-batch of its step's
/// tokens and returns the loss alone, and its step's arena grows to hold
/// it. Returns the largest evaluation arena.
static FailureOr<int64_t> planEvals(ArrayRef<Lowering *> stages,
                                    ArrayRef<Lowering *> evals) {
  if (evals.size() != stages.size())
    return evals.front()->getFunc().emitOpError()
           << "convert-sp-to-runtime: " << evals.size()
           << " evaluation step function" << (evals.size() == 1 ? "" : "s")
           << " (tfm.eval_step) for " << stages.size() << " step function"
           << (stages.size() == 1 ? "" : "s") << ": one per pipeline stage";
  int64_t most = 0;
  for (auto [step, eval] : llvm::zip(stages, evals)) {
    if (failed(eval->plan()))
      return failure();
    func::FuncOp e = eval->getFunc(), s = step->getFunc();
    auto tokens = [](func::FuncOp f) {
      return cast<RankedTensorType>(f.getArgumentTypes()[0]).getNumElements();
    };
    if (eval->getMicroBatches() != 1 || eval->getNumScalars() != 1 ||
        e.getNumResults() != 1 ||
        tokens(e) * step->getMicroBatches() != tokens(s))
      return e.emitOpError()
             << "convert-sp-to-runtime: an evaluation step takes one "
                "micro-batch of its train step's tokens (@"
             << s.getName() << ": " << s.getArgumentTypes()[0] << ") and "
             << "returns the loss alone, got " << e.getFunctionType();
    step->addEvalStep(*eval);
    most = std::max(most, eval->getArenaBytes());
  }
  return most;
}

/// Lowers `funcs` (one step function, or one per pipeline stage) and the
/// evaluation steps `evalFuncs` (none, or one per step function).
static LogicalResult lowerSteps(ModuleOp module,
                                SmallVector<func::FuncOp> funcs,
                                SmallVector<func::FuncOp> evalFuncs) {
  SharedLowering shared;
  shared.funcs = funcs;
  SmallVector<std::unique_ptr<Lowering>> owned;
  SmallVector<Lowering *> stages, evals;
  for (func::FuncOp fn : funcs) {
    owned.push_back(std::make_unique<Lowering>(module, fn, shared));
    stages.push_back(owned.back().get());
    if (failed(stages.back()->plan()))
      return failure();
  }
  std::optional<int64_t> evalArena;
  if (!evalFuncs.empty()) {
    for (func::FuncOp fn : evalFuncs) {
      owned.push_back(std::make_unique<Lowering>(module, fn, shared));
      evals.push_back(owned.back().get());
    }
    FailureOr<int64_t> arena = planEvals(stages, evals);
    if (failed(arena))
      return failure();
    evalArena = *arena;
  }
  MeshOp mesh = stages.front()->meshOp();
  std::optional<StringRef> pipeline =
      mesh ? mesh.getAxisWithRole(AxisRole::pipeline) : std::nullopt;
  int64_t pipelineSize = pipeline ? *mesh.getAxisSize(*pipeline) : 1;
  if (pipelineSize != int64_t(funcs.size()))
    return funcs.front().emitOpError()
           << "convert-sp-to-runtime: the module has " << funcs.size()
           << " step function" << (funcs.size() == 1 ? "" : "s")
           << " (pipeline stages) but the mesh's pipeline axis "
           << (pipeline ? "'" + pipeline->str() + "' has " +
                              std::to_string(pipelineSize) + " ranks"
                        : std::string("is absent"));

  if (funcs.size() == 1) {
    FailureOr<llvm::json::Object> model = stages.front()->modelJson();
    if (failed(model) ||
        failed(stages.front()->emit("seqpar_step", LLVM::Linkage::External)))
      return failure();
    if (evalArena) {
      if (failed(evals.front()->emit("seqpar_eval", LLVM::Linkage::External)))
        return failure();
      (*model)["eval_arena_bytes"] = *evalArena;
    }
    emitModelJson(module, std::move(*model));
  } else {
    if (failed(checkStagesAgree(stages)))
      return failure();
    int32_t axis = 0;
    for (auto [i, name] : llvm::enumerate(mesh.getAxisNames()))
      if (cast<StringAttr>(name).getValue() == *pipeline)
        axis = int32_t(i);
    FailureOr<llvm::json::Object> model = pipelineJson(stages, axis);
    if (failed(model))
      return failure();
    if (failed(emitStaged(module, "seqpar_step", stages, axis)))
      return failure();
    if (evalArena) {
      if (failed(emitStaged(module, "seqpar_eval", evals, axis)))
        return failure();
      (*model)["eval_arena_bytes"] = *evalArena;
    }
    emitModelJson(module, std::move(*model));
  }
  // Everything the runtime now holds: the source functions, parameters,
  // mesh.
  for (func::FuncOp fn : llvm::concat<func::FuncOp>(funcs, evalFuncs))
    fn.erase();
  for (ParamOp p : llvm::make_early_inc_range(module.getOps<ParamOp>()))
    p.erase();
  if (mesh)
    mesh.erase();
  return success();
}

namespace {
struct ConvertSpToRuntimePass
    : seqpar::impl::ConvertSpToRuntimePassBase<ConvertSpToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Lowering twice would lower nothing: say so instead.
    // (What the program defines, sprt/abi.def.)
    SmallVector<StringRef> defined;
    for (const RuntimeFunction &f : runtimeFunctions())
      if (f.program)
        defined.push_back(f.name);
    llvm::append_range(defined, programData());
    for (StringRef name : defined)
      if (Operation *done = module.lookupSymbol(name)) {
        done->emitOpError() << "convert-sp-to-runtime: the module is already "
                               "lowered (it defines @"
                            << name << ")";
        return signalPassFailure();
      }
    // The train steps when there are, the forwards otherwise: one, or one
    // per pipeline stage.
    StringRef pass = "convert-sp-to-runtime";
    FailureOr<SmallVector<Operation *>> steps = TfmDialect::getMarkedFunctions(
        module, TfmDialect::TrainStepAttrHelper::getNameStr(), pass);
    if (failed(steps))
      return signalPassFailure();
    FailureOr<SmallVector<Operation *>> forwards =
        TfmDialect::getMarkedFunctions(
            module, TfmDialect::ForwardAttrHelper::getNameStr(), pass);
    if (failed(forwards))
      return signalPassFailure();
    SmallVector<Operation *> &entries = steps->empty() ? *forwards : *steps;
    if (entries.empty()) {
      module.emitError() << "convert-sp-to-runtime: the module has no "
                            "function marked tfm.forward or tfm.train_step";
      return signalPassFailure();
    }
    // The evaluation steps of a training program.
    FailureOr<SmallVector<Operation *>> evalEntries =
        TfmDialect::getMarkedFunctions(
            module, TfmDialect::EvalStepAttrHelper::getNameStr(), pass);
    if (failed(evalEntries))
      return signalPassFailure();
    if (!evalEntries->empty() && steps->empty()) {
      evalEntries->front()->emitOpError()
          << "convert-sp-to-runtime: an evaluation step (tfm.eval_step) "
             "without a train step: a forward-only program is its own";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs, evals;
    for (auto [ops, out] :
         {std::pair(&entries, &funcs), std::pair(&*evalEntries, &evals)})
      for (Operation *op : *ops) {
        auto fn = dyn_cast<func::FuncOp>(op);
        if (!fn) {
          op->emitOpError() << "convert-sp-to-runtime: a step function must "
                               "be a func.func";
          return signalPassFailure();
        }
        out->push_back(fn);
      }
    if (failed(lowerSteps(module, std::move(funcs), std::move(evals))))
      signalPassFailure();
  }
};
} // namespace

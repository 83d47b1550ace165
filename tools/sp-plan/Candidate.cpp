//===- Candidate.cpp - one layout compiled for its facts -----------------===//

#include "Candidate.h"

#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/TensorSizes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::plan;
namespace json = llvm::json;
using llvm::Expected;
using llvm::toString;

std::string Layout::name() const {
  std::string s = "tp" + std::to_string(tp);
  if (sp)
    s += " sp";
  if (cp > 1)
    s += " cp" + std::to_string(cp) + (cpAttention == "ring" ? " ring" : "");
  if (pp > 1)
    s += " pp" + std::to_string(pp);
  s += " dp" + std::to_string(dp);
  if (zero)
    s += " z1";
  s += " mb" + std::to_string(microBatches);
  if (recompute != "none")
    s += " " + recompute.substr(0, 3);
  return s;
}

std::vector<std::string> Layout::compileFlags(StringRef precision) const {
  std::vector<std::string> f{"--train", "--tp", std::to_string(tp)};
  if (sp)
    f.push_back("--sp");
  if (cp > 1)
    f.insert(f.end(), {"--cp", std::to_string(cp)});
  if (cpAttention != "allgather")
    f.insert(f.end(), {"--cp-attention", cpAttention});
  if (pp > 1)
    f.insert(f.end(), {"--pp", std::to_string(pp)});
  if (dp > 1)
    f.insert(f.end(), {"--dp", std::to_string(dp)});
  if (zero)
    f.insert(f.end(), {"--zero", "1"});
  if (microBatches > 1)
    f.insert(f.end(), {"--micro-batches", std::to_string(microBatches)});
  if (recompute != "none")
    f.insert(f.end(), {"--recompute", recompute});
  f.insert(f.end(),
           {"--precision", precision.str(), "--overlap-grad-reductions=true"});
  return f;
}

/// The bytes a memory-bound kernel reads and writes: its tensor operands
/// and results. Ops without a tensor operand (parameters, constants) and
/// ops with regions (the loops, whose bodies are counted) move nothing.
static int64_t memoryBoundBytes(Operation *op) {
  if (op->getNumRegions() || op->hasTrait<mlir::OpTrait::IsTerminator>() ||
      llvm::none_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>))
    return 0;
  int64_t bytes = 0;
  for (ValueRange values :
       {ValueRange(op->getOperands()), ValueRange(op->getResults())})
    for (Value v : values)
      if (isa<RankedTensorType>(v.getType()))
        bytes += checkedByteSize(v).value_or(0);
  return bytes;
}

/// The bytes `op`, an attention or its gradient, would move if its kernel
/// materialized the scores (StageFacts::attentionScoreBytes): its b x heads
/// x s_q x s_k scores on this rank (q [s, b, heads * head_dim], k [s_k, b,
/// ...]), a ring's for each of its key blocks.
static int64_t attentionScoreBytes(Operation *op,
                                   SymbolTableCollection &symbols) {
  auto bytes = [](auto a, int64_t blocks, bool backward) -> int64_t {
    RankedTensorType q = a.getQ().getType(), k = a.getK().getType();
    int64_t scores = q.getDimSize(0) * q.getDimSize(1) *
                     (q.getDimSize(2) / int64_t(a.getHeadDim())) *
                     k.getDimSize(0) * blocks;
    return scores * materializedScoreBytes(q.getElementTypeBitWidth() / 8,
                                           !a.getDropoutRate().isZero(),
                                           backward);
  };
  auto ranks = [&]() -> int64_t {
    auto ring = cast<dist::CollectiveOpInterface>(op);
    auto mesh =
        symbols.lookupNearestSymbolFrom<dist::MeshOp>(op, ring.getMeshRef());
    return mesh ? mesh.getAxisSize(ring.getMeshAxis()).value_or(0) : 0;
  };
  if (auto a = dyn_cast<tfm::AttentionOp>(op))
    return bytes(a, 1, false);
  if (auto g = dyn_cast<tfm::AttentionGradOp>(op))
    return bytes(g, 1, true);
  if (auto r = dyn_cast<dist::RingAttentionOp>(op))
    return bytes(r, ranks(), false);
  if (auto r = dyn_cast<dist::RingAttentionGradOp>(op))
    return bytes(r, ranks(), true);
  return 0;
}

/// The FLOPs and traffic of one rank running `func`, every op of a
/// micro-batch loop's body counted once per micro-batch (as sp-report's
/// FLOPs are).
static StageFacts stageFacts(func::FuncOp func, const json::Object &flops) {
  StageFacts facts;
  facts.modelFlops =
      *flops.getInteger("forward") + *flops.getInteger("backward");
  facts.recomputeFlops = *flops.getInteger("recompute");
  facts.backwardFlops = *flops.getInteger("backward") + facts.recomputeFlops;
  SymbolTableCollection symbols;
  func.walk([&](Operation *op) {
    int64_t times = 1;
    if (auto loop = op->getParentOfType<tfm::MicroBatchLoopOp>())
      times = loop.getMicroBatches();
    auto c = dyn_cast<dist::CollectiveOpInterface>(op);
    if (auto cost = dyn_cast<dist::CostOpInterface>(op)) {
      std::optional<int64_t> n = cost.getFlops();
      if (n && cost.getCostKind() == dist::CostKind::attention) {
        facts.attentionFlops += *n * times;
        facts.attentionScoreBytes += attentionScoreBytes(op, symbols) * times;
        if (isa<dist::RingAttentionOp, dist::RingAttentionGradOp>(op))
          facts.ringAttentionFlops += *n * times;
      } else if (n && cost.getCostKind() == dist::CostKind::gemm) {
        facts.gemmFlops += *n * times;
        for (const dist::GemmShape &g : dist::gemmShapes(op))
          facts.gemmFlopsByOutput[{g.rows, g.cols}] +=
              2 * g.rows * g.cols * g.inner * times;
      } else if (!c) {
        if (int64_t bytes = memoryBoundBytes(op))
          facts.memoryBoundBytes[op->getName().getStringRef()] += bytes * times;
      }
    }
    if (!c)
      return;
    auto mesh =
        symbols.lookupNearestSymbolFrom<dist::MeshOp>(op, c.getMeshRef());
    std::optional<int64_t> bytes =
        c.getRingBytesSent(*mesh.getAxisSize(c.getMeshAxis()));
    if (!bytes || !*bytes)
      return;
    AxisTraffic &t = facts.traffic[c.getMeshAxis()];
    StringRef name = op->getName().getStringRef();
    if (name.contains("_matmul")) {
      t.fusedBytes += *bytes * times;
      t.fusedCount += times;
    } else if (op->hasAttr("async")) {
      t.asyncBytes += *bytes * times;
      t.asyncCount += times;
    } else {
      t.exposedBytes += *bytes * times;
      t.exposedCount += times;
    }
  });
  return facts;
}

CompileResult seqpar::plan::compileCandidate(ModuleOp model,
                                             const Layout &layout,
                                             StringRef precision,
                                             int64_t fuseChunks) {
  CompileResult result;
  PipelineOptions options;
  options.tp = layout.tp;
  options.dp = layout.dp;
  options.cp = layout.cp;
  options.pp = layout.pp;
  options.sequenceParallel = layout.sp;
  options.train = true;
  options.zero = layout.zero;
  options.microBatches = layout.microBatches;
  // sp-plan's own flags and layouts name them; validated there.
  options.recompute = *symbolizeRecomputePolicy(layout.recompute);
  options.precision = *symbolizePrecision(precision);
  options.cpAttention = *symbolizeCpAttention(layout.cpAttention);
  options.fuseChunks = fuseChunks;
  options.overlapGradReductions = true;
  options.lowerToRuntime = false;
  if (std::optional<std::string> error =
          checkPipelineOptions(options, /*train=*/true)) {
    result.rejection = *error;
    return result;
  }

  MLIRContext *context = model.getContext();
  OwningOpRef<ModuleOp> module = model.clone();
  // The compiler's first error is the reason; later ones follow from it.
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error &&
        result.rejection.empty())
      result.rejection = d.str();
    return success();
  });

  SmallString<128> tmp;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sp-plan", "json", tmp)) {
    result.rejection = "cannot create a temporary file: " + ec.message();
    return result;
  }
  PassManager pm(context);
  buildPipeline(pm, options);
  dist::SpReportPassOptions reportOptions;
  reportOptions.memory = true;
  reportOptions.output = tmp.str().str();
  pm.addPass(dist::createSpReportPass(reportOptions));
  bool ok = succeeded(pm.run(*module));
  auto text = llvm::MemoryBuffer::getFile(tmp);
  llvm::sys::fs::remove(tmp);
  if (!ok) {
    if (result.rejection.empty())
      result.rejection = "the pipeline failed without a diagnostic";
    return result;
  }
  Expected<json::Value> report =
      text ? json::parse((*text)->getBuffer())
           : Expected<json::Value>(llvm::createStringError(
                 text.getError(), "the report could not be read back"));
  if (!report || !report->getAsObject()) {
    result.rejection =
        "the memory report could not be read: " +
        (report ? std::string("not an object") : toString(report.takeError()));
    return result;
  }
  result.memory = std::move(*report->getAsObject());
  // The mesh in the compiler's order (the report's JSON object is sorted).
  for (auto m : module->getOps<dist::MeshOp>())
    for (auto [name, size] : llvm::zip(m.getAxisNames(), m.getAxisSizes())) {
      result.mesh.axes.push_back(cast<StringAttr>(name).getValue().str());
      result.mesh.sizes.push_back(size);
    }

  // One entry per stage when there are several, else the top level.
  std::vector<const json::Object *> entries;
  if (const json::Array *stages = result.memory.getArray("stages"))
    for (const json::Value &s : *stages)
      entries.push_back(s.getAsObject());
  else
    entries.push_back(&result.memory);
  for (const json::Object *e : entries) {
    const json::Object *rank = e->getObject("per_rank_peak_bytes");
    const json::Object *flops = e->getObject("flops");
    std::optional<StringRef> fname = rank->getString("function");
    auto func = module->lookupSymbol<func::FuncOp>(*fname);
    StageFacts facts = stageFacts(func, *flops);
    // The same FLOPs as the report's, or the planner counts something else.
    if (facts.gemmFlops + facts.attentionFlops != *flops->getInteger("step")) {
      result.rejection =
          "internal: sp-plan counted " +
          std::to_string(facts.gemmFlops + facts.attentionFlops) +
          " FLOPs in @" + fname->str() + ", sp-report " +
          std::to_string(*flops->getInteger("step"));
      return result;
    }
    int64_t shaped = 0;
    for (const auto &entry : facts.gemmFlopsByOutput)
      shaped += entry.second;
    if (shaped != facts.gemmFlops) {
      result.rejection = "internal: the GEMMs' shapes in @" + fname->str() +
                         " count " + std::to_string(shaped) + " of their " +
                         std::to_string(facts.gemmFlops) + " FLOPs";
      return result;
    }
    result.stages.push_back(std::move(facts));
  }
  return result;
}

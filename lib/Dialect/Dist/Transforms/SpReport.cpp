//===- SpReport.cpp - activation memory and communication per layer -------===//
//
// The pass and the communication report; the memory report's fields come
// from SpReportMemory.cpp.
//
//===----------------------------------------------------------------------===//

#include "SpReport.h"

#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/LayerIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace seqpar::dist {
#define GEN_PASS_DEF_SPREPORTPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

LogicalResult dist::addBytes(int64_t &total, std::optional<int64_t> bytes,
                             Operation *op, StringRef what) {
  std::optional<int64_t> sum = bytes && *bytes >= 0
                                   ? llvm::checkedAdd<int64_t>(total, *bytes)
                                   : std::nullopt;
  if (!sum)
    return op->emitOpError() << what << " overflows int64 bytes at this op";
  total = *sum;
  return success();
}

int64_t dist::executionsPerStep(Operation *op) {
  auto loop = op->getParentOfType<tfm::MicroBatchLoopOp>();
  return loop ? loop.getMicroBatches() : 1;
}

/// Per-layer sums, layer -1 standing for everything outside the layers.
template <typename T> using PerLayer = std::map<int64_t, T>;

namespace {
struct CommEntry {
  int64_t bytes = 0;
  SmallVector<llvm::json::Value> collectives;
};
} // namespace

static LogicalResult commReport(func::FuncOp func, PerLayer<CommEntry> &layers,
                                int64_t &total) {
  // One symbol table for the walk (a lookup without one scans the module).
  SymbolTableCollection symbols;
  WalkResult r = func.walk([&](CollectiveOpInterface op) {
    auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(op, op.getMeshRef());
    int64_t n = *mesh.getAxisSize(op.getMeshAxis());
    // A micro-batch loop's collective sends its bytes once per micro-batch.
    int64_t times = executionsPerStep(op);
    std::optional<int64_t> once = op.getRingBytesSent(n);
    std::optional<int64_t> bytes =
        once ? llvm::checkedMul<int64_t>(*once, times) : std::nullopt;
    if (!bytes) {
      InFlightDiagnostic diag = op->emitOpError()
                                << "the bytes it sends on axis '"
                                << op.getMeshAxis() << "' (" << n << " ranks";
      if (times > 1)
        diag << ", once per each of " << times << " micro-batches";
      diag << ") overflow int64";
      return WalkResult::interrupt();
    }
    // Every layer's sum is at most the total.
    if (failed(addBytes(total, bytes, op, "the communication report")))
      return WalkResult::interrupt();
    int64_t sent = *bytes;
    CommEntry &entry = layers[layerOf(op->getLoc())];
    entry.bytes += sent;
    llvm::json::Object c{{"op", op->getName().getStringRef()},
                         {"axis", op.getMeshAxis()},
                         {"bytes_sent", sent}};
    if (auto dim = op->getAttrOfType<IntegerAttr>("dim"))
      c["dim"] = dim.getInt();
    if (times > 1)
      c["micro_batches"] = times;
    entry.collectives.push_back(std::move(c));
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

namespace {
struct SpReportPass : dist::impl::SpReportPassBase<SpReportPass> {
  using SpReportPassBase::SpReportPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (memory == comm) {
      module.emitError() << "sp-report: choose one of 'memory' or 'comm'";
      return signalPassFailure();
    }
    llvm::json::Object report{{"report", memory ? "memory" : "comm"}};
    FailureOr<MeshOp> mesh = getMesh(module);
    if (failed(mesh))
      return signalPassFailure();
    llvm::json::Object meshJson;
    if (*mesh)
      for (auto [name, size] :
           llvm::zip(mesh->getAxisNames(), mesh->getAxisSizes()))
        meshJson[cast<StringAttr>(name).getValue()] = size;
    report["mesh"] = std::move(meshJson);

    // The paper column's policy: the step's own (none given), or the
    // option's.
    std::optional<RecomputePolicy> paperPolicy =
        recompute == PaperRecompute::step
            ? std::nullopt
            : symbolizeRecomputePolicy(stringifyEnum(recompute));
    if (comm && paperPolicy) {
      module.emitError() << "sp-report: recompute= is the memory report's "
                            "paper column; the comm report has none";
      return signalPassFailure();
    }
    if (memory) {
      if (failed(memoryReport(module, paperPolicy, report)))
        return signalPassFailure();
    } else {
      llvm::json::Array layers;
      PerLayer<CommEntry> entries;
      int64_t checkedTotal = 0;
      // A step's bytes: an evaluation step (tfm-eval-step) runs apart.
      for (auto func : module.getOps<func::FuncOp>())
        if (!func->hasAttr(TfmDialect::EvalStepAttrHelper::getNameStr()) &&
            failed(commReport(func, entries, checkedTotal)))
          return signalPassFailure();
      int64_t total = 0;
      for (auto &[layer, e] : entries) {
        llvm::json::Object o{
            {"bytes_sent", e.bytes},
            {"collectives", llvm::json::Array(std::move(e.collectives))}};
        total += e.bytes;
        if (layer < 0) {
          report["outside_layers"] = std::move(o);
        } else {
          o["layer"] = layer;
          layers.push_back(std::move(o));
        }
      }
      report["total_bytes_sent"] = total;
      report["layers"] = std::move(layers);
      // With pipeline parallelism, one entry per stage (a rank runs one).
      FailureOr<SmallVector<func::FuncOp>> program = programFunctions(module);
      if (failed(program))
        return signalPassFailure();
      if (program->size() > 1) {
        llvm::json::Array stages;
        for (func::FuncOp f : *program) {
          FailureOr<llvm::json::Object> stage = stageCommReport(f, *program);
          if (failed(stage))
            return signalPassFailure();
          stages.push_back(std::move(*stage));
        }
        report["stages"] = std::move(stages);
      }
    }

    std::error_code ec;
    llvm::ToolOutputFile out(output, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      module.emitError() << "sp-report: cannot write '" << output
                         << "': " << ec.message();
      return signalPassFailure();
    }
    out.os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
             << "\n";
    out.keep();
  }
};
} // namespace

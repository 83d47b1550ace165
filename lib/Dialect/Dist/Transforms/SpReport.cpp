//===- SpReport.cpp - activation memory and communication per layer -------===//

#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/LayerIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
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

static int64_t elementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

/// Adds `bytes` to `total`, or an error at `op` when either is unknown
/// (negative) or the sum overflows int64; `what` names the count.
static LogicalResult addBytes(int64_t &total, std::optional<int64_t> bytes,
                              Operation *op, StringRef what) {
  std::optional<int64_t> sum = bytes && *bytes >= 0
                                   ? llvm::checkedAdd<int64_t>(total, *bytes)
                                   : std::nullopt;
  if (!sum)
    return op->emitOpError() << what << " overflows int64 bytes at this op";
  total = *sum;
  return success();
}

namespace {
struct Bytes {
  int64_t ir = 0, paper = 0;
};

/// Per-layer sums, layer -1 standing for everything outside the layers.
template <typename T> using PerLayer = std::map<int64_t, T>;

struct MemoryEntry {
  Bytes total;
  std::map<std::string, int64_t> paperByKind;
};
} // namespace

/// A value the backward reads again. A column GEMM's input that was
/// all-gathered is kept as the shard and re-gathered in the backward
/// (Korthikanti et al. 2022, section 4.2.2), so the shard is what stays live.
static Value keptValue(Value v) {
  if (auto gather = v.getDefiningOp<AllGatherOp>())
    return gather.getInput();
  return v;
}

/// The first op of a train step's backward (tfm-autodiff marks the seed).
static Operation *backwardBegin(func::FuncOp func) {
  for (Operation &op : func.getBody().getOps())
    if (op.hasAttr(tfm::TfmDialect::BackwardBeginsAttrHelper::getNameStr()))
      return &op;
  return nullptr;
}

/// Bytes of the forward values a train step's backward reads: what really
/// stays live from the forward to the backward (parameters and the token
/// inputs excluded).
static FailureOr<int64_t> keptByTrainStep(func::FuncOp func, Operation *begin) {
  SetVector<Value> kept;
  bool backward = false;
  for (Operation &op : func.getBody().getOps()) {
    backward |= &op == begin;
    if (!backward || isa<func::ReturnOp>(op))
      continue;
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && !def->isBeforeInBlock(begin))
        continue; // a backward value
      if (!def || isa<GetParamOp>(def))
        continue;
      kept.insert(v);
    }
  }
  int64_t bytes = 0;
  for (Value v : kept)
    if (failed(addBytes(bytes, checkedByteSize(v), v.getDefiningOp(),
                        "the forward values the backward keeps")))
      return failure();
  return bytes;
}

static LogicalResult memoryReport(func::FuncOp func,
                                  PerLayer<MemoryEntry> &layers, Bytes &total) {
  DenseSet<Value> counted;
  bool failedAtOp = false;
  Operation *begin = backwardBegin(func);
  WalkResult r = func.walk([&](Operation *op) {
    if (begin && !op->isBeforeInBlock(begin))
      return WalkResult::interrupt(); // the forward part only
    if (!isa<TfmDialect>(op->getDialect()))
      return WalkResult::advance();
    auto decl = dyn_cast<SavedForBackwardOpInterface>(op);
    if (!decl) {
      op->emitOpError() << "declares nothing about what its backward keeps";
      failedAtOp = true;
      return WalkResult::interrupt();
    }
    SmallVector<SavedTensor> saved;
    decl.getSavedForBackward(saved);
    MemoryEntry &entry = layers[layerOf(op->getLoc())];
    for (const SavedTensor &t : saved) {
      int64_t n = t.numElements;
      Type et = t.elementType;
      if (t.value) {
        Value v = keptValue(t.value);
        // Function arguments (the batch) are the caller's, kept anyway.
        if (isa<BlockArgument>(v) || !counted.insert(v).second)
          continue;
        auto type = cast<RankedTensorType>(v.getType());
        n = type.getNumElements();
        et = type.getElementType();
      }
      // Internal tensors (softmax output, dropout masks) are what the paper's
      // implementation keeps; seqpar's backward recomputes them (masks from
      // the counter-based generator, probabilities from q and k), so they
      // count in the paper's accounting only.
      bool mask = t.kind == SavedTensor::Kind::Mask;
      std::optional<int64_t> ir = 0, paper = n;
      if (t.value)
        ir = llvm::checkedMul<int64_t>(n, elementBytes(et));
      if (!mask)
        paper = llvm::checkedMul<int64_t>(n, 2);
      // Every sum below is at most the totals, so checking these suffices.
      if (failed(addBytes(total.ir, ir, op, "the activation memory report")) ||
          failed(addBytes(total.paper, paper, op,
                          "the activation memory report (paper accounting)"))) {
        failedAtOp = true;
        return WalkResult::interrupt();
      }
      entry.total.ir += *ir;
      entry.total.paper += *paper;
      entry.paperByKind[t.what.str()] += *paper;
    }
    return WalkResult::advance();
  });
  (void)r;
  return failure(failedAtOp);
}

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
    std::optional<int64_t> bytes = op.getRingBytesSent(n);
    if (!bytes) {
      op->emitOpError() << "the bytes it sends on axis '" << op.getMeshAxis()
                        << "' (" << n << " ranks) overflow int64";
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

    llvm::json::Array layers;
    if (memory) {
      PerLayer<MemoryEntry> entries;
      Bytes checkedTotal;
      for (auto func : module.getOps<func::FuncOp>())
        if (failed(memoryReport(func, entries, checkedTotal)))
          return signalPassFailure();
      Bytes total;
      for (auto &[layer, e] : entries) {
        llvm::json::Object kinds;
        for (auto &[what, bytes] : e.paperByKind)
          kinds[what] = bytes;
        llvm::json::Object o{{"ir_bytes", e.total.ir},
                             {"paper_bytes", e.total.paper},
                             {"paper_bytes_by_kind", std::move(kinds)}};
        total.ir += e.total.ir;
        total.paper += e.total.paper;
        if (layer < 0) {
          report["outside_layers"] = std::move(o);
        } else {
          o["layer"] = layer;
          layers.push_back(std::move(o));
        }
      }
      report["total"] = llvm::json::Object{{"ir_bytes", total.ir},
                                           {"paper_bytes", total.paper}};
      for (auto func : module.getOps<func::FuncOp>())
        if (Operation *begin = backwardBegin(func)) {
          FailureOr<int64_t> kept = keptByTrainStep(func, begin);
          if (failed(kept))
            return signalPassFailure();
          report["train_step_kept_bytes"] = *kept;
        }
    } else {
      PerLayer<CommEntry> entries;
      int64_t checkedTotal = 0;
      for (auto func : module.getOps<func::FuncOp>())
        if (failed(commReport(func, entries, checkedTotal)))
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
    }
    report["layers"] = std::move(layers);

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

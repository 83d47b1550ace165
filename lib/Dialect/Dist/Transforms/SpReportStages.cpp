//===- SpReportStages.cpp - the comm report of one pipeline stage ---------===//
//
// With pipeline parallelism a rank runs one stage's function: the comm
// report gives each stage its collectives (grouped by op and mesh axis, with
// their count and the bytes one rank sends, as the layers' entries count
// them) and its point-to-point traffic on the pipeline axis, per
// micro-batch (the activations and their gradients crossing the stage's
// boundaries: with SP the [s/t, b, h] shard) and outside them (the
// exchange of the gradients of the weights several stages hold). A recv
// sends nothing; it receives its result's bytes.
//
// sp-sync-grads appends the exchange to the step after all the micro-batch
// traffic, so a stage's last sends and recvs on the pipeline axis, one per
// other holder of each weight it holds, are the exchange; the others are
// in a micro-batch loop's body (each micro-batch's), carry their
// micro-batch (tfm.in_micro_batch) or, with one micro-batch, are 0's. A
// collective in a loop's body counts once per micro-batch.
//
//===----------------------------------------------------------------------===//

#include "SpReport.h"

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/TensorSizes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <map>
#include <string>
#include <utility>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

/// How many sends (and as many recvs) of the weight-gradient exchange the
/// step of stage `stage` of `program` ends with: for each weight (a
/// parameter, or its tie group) whose gradient several stages return, one
/// per other stage returning it.
static int64_t exchangedCopies(ModuleOp module, ArrayRef<func::FuncOp> program,
                               int64_t stage) {
  SymbolTable symbols(module);
  std::map<std::string, SmallVector<int64_t>> holders;
  for (func::FuncOp f : program)
    for (unsigned i = 0; i < f.getNumResults(); ++i)
      if (auto p = f.getResultAttrOfType<FlatSymbolRefAttr>(
              i, TfmDialect::GradOfAttrHelper::getNameStr())) {
        auto decl = symbols.lookup<ParamOp>(p.getValue());
        std::string weight = decl && decl.getTieGroup()
                                 ? "tie:" + decl.getTieGroup()->str()
                                 : p.getValue().str();
        SmallVector<int64_t> &h = holders[weight];
        int64_t k = TfmDialect::getPipelineStage(f);
        if (!llvm::is_contained(h, k))
          h.push_back(k);
      }
  int64_t n = 0;
  for (auto &[weight, held] : holders)
    if (held.size() > 1 && llvm::is_contained(held, stage))
      n += int64_t(held.size()) - 1;
  return n;
}

namespace {
/// A stage's point-to-point traffic of one micro-batch (or the exchange).
struct PointToPoint {
  int64_t sendBytes = 0, recvBytes = 0, sends = 0, recvs = 0;
};
} // namespace

FailureOr<llvm::json::Object>
dist::stageCommReport(func::FuncOp func, ArrayRef<func::FuncOp> program) {
  SymbolTableCollection symbols;
  // (op, axis) -> (count, bytes sent), in name order.
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>
      groups;
  // Micro-batch (-1: the weight-gradient exchange) -> its traffic.
  std::map<int64_t, PointToPoint> p2p;
  std::string p2pAxis;
  SmallVector<CollectiveOpInterface> sends, recvs;
  int64_t total = 0;
  WalkResult r = func.walk([&](CollectiveOpInterface op) {
    auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(op, op.getMeshRef());
    int64_t n = *mesh.getAxisSize(op.getMeshAxis());
    // A micro-batch loop's collective runs once per micro-batch.
    int64_t times = executionsPerStep(op);
    std::optional<int64_t> once = op.getRingBytesSent(n);
    std::optional<int64_t> bytes =
        once ? llvm::checkedMul<int64_t>(*once, times) : std::nullopt;
    if (failed(addBytes(total, bytes, op, "the stage's communication report")))
      return WalkResult::interrupt();
    bool isSend = isa<SendOp>(op), isRecv = isa<RecvOp>(op);
    if (!isSend && !isRecv) {
      auto &g =
          groups[{op->getName().getStringRef().str(), op.getMeshAxis().str()}];
      g.first += times;
      g.second += *bytes;
      return WalkResult::advance();
    }
    p2pAxis = op.getMeshAxis().str();
    (isSend ? sends : recvs).push_back(op);
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();

  // The last `exchanged` sends and recvs are the exchange (-1 below).
  int64_t exchanged =
      exchangedCopies(func->getParentOfType<ModuleOp>(), program,
                      TfmDialect::getPipelineStage(func));
  if (int64_t(sends.size()) < exchanged || int64_t(recvs.size()) < exchanged)
    return func.emitOpError()
           << "sp-report: pipeline stage " << TfmDialect::getPipelineStage(func)
           << " exchanges " << exchanged
           << " weight-gradient copies but has only " << sends.size()
           << " dist.send and " << recvs.size() << " dist.recv";
  for (bool send : {true, false}) {
    ArrayRef<CollectiveOpInterface> ops = send ? sends : recvs;
    for (auto [i, op] : llvm::enumerate(ops)) {
      auto mb = op->getAttrOfType<IntegerAttr>(
          TfmDialect::InMicroBatchAttrHelper::getNameStr());
      bool exchange = int64_t(i) >= int64_t(ops.size()) - exchanged;
      if (exchange && mb)
        return op->emitOpError() << "sp-report: a weight-gradient exchange "
                                    "inside micro-batch "
                                 << mb.getInt();
      // In a loop's body: micro-batches 0 to n - 1 each.
      int64_t first = exchange ? -1 : mb ? mb.getInt() : 0;
      int64_t n = executionsPerStep(op);
      for (int64_t i = first; i < first + n; ++i) {
        PointToPoint &t = p2p[i];
        Value v = send ? op->getOperand(0) : op->getResult(0);
        if (failed(addBytes(send ? t.sendBytes : t.recvBytes,
                            checkedByteSize(v), op,
                            "the stage's point-to-point bytes")))
          return failure();
        ++(send ? t.sends : t.recvs);
      }
    }
  }

  llvm::json::Array collectives;
  for (auto &[key, g] : groups)
    collectives.push_back(llvm::json::Object{{"op", key.first},
                                             {"axis", key.second},
                                             {"count", g.first},
                                             {"bytes_sent", g.second}});
  auto traffic = [](const PointToPoint &t) {
    return llvm::json::Object{{"send_bytes", t.sendBytes},
                              {"recv_bytes", t.recvBytes},
                              {"sends", t.sends},
                              {"recvs", t.recvs}};
  };
  llvm::json::Array perMicroBatch;
  llvm::json::Object pointToPoint{{"axis", p2pAxis}};
  for (auto &[mb, t] : p2p) {
    if (mb < 0) {
      pointToPoint["weight_exchange"] = traffic(t);
      continue;
    }
    llvm::json::Object o = traffic(t);
    o["micro_batch"] = mb;
    perMicroBatch.push_back(std::move(o));
  }
  pointToPoint["micro_batches"] = std::move(perMicroBatch);
  return llvm::json::Object{{"stage", TfmDialect::getPipelineStage(func)},
                            {"bytes_sent", total},
                            {"collectives", std::move(collectives)},
                            {"point_to_point", std::move(pointToPoint)}};
}

//===- PipelineSchedule.cpp - the stages' point-to-point traffic ----------===//
//
// Matching (the n-th send from stage a to stage b with the n-th recv of b
// from a), the types of each pair, and a run of the stages with buffered
// sends and blocking recvs that either finishes or shows the deadlock.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Analysis/PipelineSchedule.h"
#include "seqpar/Dialect/Dist/Analysis/GradAccounting.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// `(k + offset) mod p`.
static int64_t wrap(int64_t k, int64_t offset, int64_t p) {
  return ((k + offset) % p + p) % p;
}

static std::string ordinal(int64_t i) { return "#" + std::to_string(i); }

int64_t PipelineSchedule::stageOf(Operation *op) const {
  auto fn = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op)
                                  : op->getParentOfType<func::FuncOp>();
  return tfm::TfmDialect::getPipelineStage(fn);
}

FailureOr<PipelineSchedule>
PipelineSchedule::match(ArrayRef<func::FuncOp> stages, MeshOp mesh,
                        StringRef axis) {
  PipelineSchedule s;
  s.stages.assign(stages.begin(), stages.end());
  int64_t p = stages.size();
  // sends[a][b]: stage a's sends to b in order; recvs[b][a] likewise.
  std::vector<std::vector<SmallVector<Operation *>>> sends(
      p, std::vector<SmallVector<Operation *>>(p)),
      recvs = sends;
  for (int64_t k = 0; k < p; ++k)
    for (Operation &op : s.stages[k].getBody().getOps()) {
      if (auto send = dyn_cast<SendOp>(op); send && send.getAxis() == axis) {
        int64_t to = wrap(k, send.getOffset(), p);
        sends[k][to].push_back(&op);
        s.sendTo[&op] = to;
      } else if (auto recv = dyn_cast<RecvOp>(op);
                 recv && recv.getAxis() == axis) {
        int64_t from = wrap(k, recv.getOffset(), p);
        s.recvIndex[&op] = {from, int64_t(recvs[k][from].size())};
        recvs[k][from].push_back(&op);
      }
    }
  for (int64_t a = 0; a < p; ++a)
    for (int64_t b = 0; b < p; ++b) {
      ArrayRef<Operation *> out = sends[a][b], in = recvs[b][a];
      for (size_t i = 0; i < std::min(out.size(), in.size()); ++i) {
        Type sent = cast<SendOp>(out[i]).getInput().getType();
        Type received = cast<RecvOp>(in[i]).getType();
        if (sent != received) {
          auto count = [](Type t) {
            return cast<RankedTensorType>(t).getNumElements();
          };
          InFlightDiagnostic diag = out[i]->emitOpError()
                                    << "sends " << sent << " to pipeline stage "
                                    << b << ", whose matching dist.recv (its "
                                    << ordinal(i) << " from stage " << a
                                    << ") receives " << received;
          if (count(sent) != count(received))
            diag << " (" << count(sent) << " elements, not " << count(received)
                 << ")";
          diag.attachNote(in[i]->getLoc()) << "the matching dist.recv";
          return diag;
        }
        s.peer[out[i]] = in[i];
        s.peer[in[i]] = out[i];
      }
      if (out.size() > in.size())
        return out[in.size()]->emitOpError()
               << "sends to pipeline stage " << b << " (its send "
               << ordinal(in.size()) << " there), but stage " << b
               << " has only " << in.size() << " dist.recv from stage " << a
               << " on mesh axis '" << axis << "'";
      if (in.size() > out.size())
        return in[out.size()]->emitOpError()
               << "receives from pipeline stage " << a << " (its recv "
               << ordinal(out.size()) << " from there), but stage " << a
               << " has only " << out.size() << " dist.send to stage " << b
               << " on mesh axis '" << axis << "'";
    }
  return s;
}

/// " (micro-batch i)" for an op of micro-batch i, else nothing.
static std::string microBatchOf(Operation *op) {
  if (auto i = op->getAttrOfType<IntegerAttr>(
          tfm::TfmDialect::InMicroBatchAttrHelper::getNameStr()))
    return " (micro-batch " + std::to_string(i.getInt()) + ")";
  return "";
}

LogicalResult
PipelineSchedule::run(function_ref<LogicalResult(Operation *)> visit) const {
  int64_t p = stages.size();
  SmallVector<Block::iterator> pos, end;
  for (func::FuncOp fn : llvm::ArrayRef(stages)) {
    pos.push_back(fn.getBody().front().begin());
    end.push_back(fn.getBody().front().end());
  }
  // issued[a][b]: how many of a's sends to b were issued.
  std::vector<std::vector<int64_t>> issued(p, std::vector<int64_t>(p, 0));
  auto blocked = [&](Operation *op) {
    auto it = recvIndex.find(op);
    if (it == recvIndex.end())
      return false;
    auto [from, index] = it->second;
    return issued[from][stageOf(op)] <= index;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t k = 0; k < p; ++k)
      while (pos[k] != end[k] && !blocked(&*pos[k])) {
        Operation *op = &*pos[k];
        if (failed(visit(op)))
          return failure();
        if (auto it = sendTo.find(op); it != sendTo.end())
          ++issued[k][it->second];
        ++pos[k];
        progress = true;
      }
  }
  int64_t first = 0;
  while (first < p && pos[first] == end[first])
    ++first;
  if (first == p)
    return success();
  // Every stage not finished waits at a recv (match() saw every send of a
  // finished stage issued, so its peers are not waiting for it).
  Operation *at = &*pos[first];
  InFlightDiagnostic diag = at->emitOpError()
                            << "pipeline deadlock: stage " << first
                            << " waits at this recv" << microBatchOf(at);
  llvm::SmallSet<int64_t, 8> seen;
  seen.insert(first);
  for (int64_t k = first;;) {
    int64_t from = recvIndex.lookup(&*pos[k]).first;
    diag << " for stage " << from;
    if (pos[from] == end[from] || !seen.insert(from).second)
      break;
    Operation *waits = &*pos[from];
    diag << ", which waits at its recv" << microBatchOf(waits);
    diag.attachNote(waits->getLoc())
        << "stage " << from << " waits here" << microBatchOf(waits);
    k = from;
  }
  diag << ": each waits for a send issued only after its own recv";
  return diag;
}

LogicalResult dist::verifyPipelines(ModuleOp module, MeshOp mesh) {
  for (StringRef marker : {tfm::TfmDialect::TrainStepAttrHelper::getNameStr(),
                           tfm::TfmDialect::ForwardAttrHelper::getNameStr(),
                           tfm::TfmDialect::EvalStepAttrHelper::getNameStr()}) {
    FailureOr<SmallVector<Operation *>> found =
        tfm::TfmDialect::getMarkedFunctions(module, marker, "sp-verify");
    if (failed(found))
      return failure();
    if (found->size() < 2)
      continue;
    std::optional<StringRef> axis = mesh.getAxisWithRole(AxisRole::pipeline);
    if (!axis)
      return (*found)[0]->emitOpError()
             << "is one of " << found->size() << " pipeline stages, but mesh @"
             << mesh.getSymName() << " has no axis with role pipeline";
    if (*mesh.getAxisSize(*axis) != int64_t(found->size()))
      return (*found)[0]->emitOpError()
             << "is one of " << found->size() << " pipeline stages, but the "
             << "pipeline axis '" << *axis << "' of mesh @" << mesh.getSymName()
             << " has " << *mesh.getAxisSize(*axis) << " ranks";
    SmallVector<func::FuncOp> stages;
    for (Operation *op : *found) {
      auto fn = cast<func::FuncOp>(op);
      if (!fn.getBody().hasOneBlock())
        return fn.emitOpError() << "a pipeline stage's step must be one block";
      stages.push_back(fn);
    }
    FailureOr<PipelineSchedule> schedule =
        PipelineSchedule::match(stages, mesh, *axis);
    if (failed(schedule))
      return failure();
    if (llvm::all_of(stages,
                     [](func::FuncOp f) { return hasGradientRecord(f); })) {
      if (failed(proveGradientAccounting(stages, mesh, *schedule)))
        return failure();
      continue;
    }
    if (failed(schedule->run([](Operation *) { return success(); })))
      return failure();
  }
  return success();
}

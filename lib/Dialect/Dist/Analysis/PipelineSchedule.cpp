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

/// " (micro-batch i)" for an execution in micro-batch i, else nothing.
template <typename EventT> static std::string microBatchOf(const EventT &e) {
  if (e.microBatch < 0)
    return "";
  return " (micro-batch " + std::to_string(e.microBatch) + ")";
}

/// The micro-batch of an op outside a loop: tfm.in_micro_batch, or -1.
static int64_t microBatchAttr(Operation *op) {
  auto i = op->getAttrOfType<IntegerAttr>(
      tfm::TfmDialect::InMicroBatchAttrHelper::getNameStr());
  return i ? i.getInt() : -1;
}

/// Appends the ops of `fn` in the order they run: a micro-batch loop's
/// body once per micro-batch (its forward part of iteration t, micro-batch
/// t while t < n, then its backward part, micro-batch t - lag once t >=
/// lag), then the loop itself.
template <typename EventT>
static void expand(func::FuncOp fn, SmallVectorImpl<EventT> &out) {
  for (Operation &op : fn.getBody().front()) {
    auto loop = dyn_cast<tfm::MicroBatchLoopOp>(op);
    if (!loop) {
      out.push_back({&op, microBatchAttr(&op)});
      continue;
    }
    SmallVector<Operation *> parts[2];
    Operation *begin = loop.getBackwardBegin();
    for (Operation &inner : loop.getBody().front())
      parts[loop.inBackwardPart(&inner, begin)].push_back(&inner);
    int64_t n = loop.getMicroBatches(), w = loop.getLagOrZero();
    for (int64_t t = 0; t < n + w; ++t) {
      if (t < n)
        for (Operation *inner : parts[0])
          out.push_back({inner, t});
      if (t >= w)
        for (Operation *inner : parts[1])
          out.push_back({inner, t - w});
    }
    out.push_back({&op, -1});
  }
}

FailureOr<PipelineSchedule>
PipelineSchedule::match(ArrayRef<func::FuncOp> stages, MeshOp mesh,
                        StringRef axis) {
  PipelineSchedule s;
  s.stages.assign(stages.begin(), stages.end());
  int64_t p = stages.size();
  s.events.resize(p);
  // sends[a][b]: stage a's sends to b in order; recvs[b][a] likewise
  // (events).
  std::vector<std::vector<SmallVector<Event *>>> sends(
      p, std::vector<SmallVector<Event *>>(p)),
      recvs = sends;
  for (int64_t k = 0; k < p; ++k) {
    expand(s.stages[k], s.events[k]);
    for (Event &e : s.events[k]) {
      if (auto send = dyn_cast<SendOp>(e.op); send && send.getAxis() == axis) {
        int64_t to = wrap(k, send.getOffset(), p);
        sends[k][to].push_back(&e);
        s.sendTo[e.op] = to;
      } else if (auto recv = dyn_cast<RecvOp>(e.op);
                 recv && recv.getAxis() == axis) {
        e.from = wrap(k, recv.getOffset(), p);
        e.index = int64_t(recvs[k][e.from].size());
        recvs[k][e.from].push_back(&e);
      }
    }
  }
  for (int64_t a = 0; a < p; ++a)
    for (int64_t b = 0; b < p; ++b) {
      ArrayRef<Event *> outEvents = sends[a][b], inEvents = recvs[b][a];
      for (size_t i = 0; i < std::min(outEvents.size(), inEvents.size()); ++i) {
        Operation *out = outEvents[i]->op, *in = inEvents[i]->op;
        // A loop's send pairs with the same recv in every micro-batch.
        for (auto [x, y] : {std::pair(out, in), std::pair(in, out)})
          if (Operation *before = s.peer.lookup(x); before && before != y) {
            InFlightDiagnostic diag =
                x->emitOpError()
                << "is paired with another dist."
                << (isa<SendOp>(x) ? "recv" : "send") << " in micro-batch "
                << outEvents[i]->microBatch
                << " than before: the stages' micro-batch loops do not "
                   "send and receive in the same order";
            diag.attachNote(before->getLoc()) << "paired before";
            diag.attachNote(y->getLoc()) << "paired now";
            return diag;
          }
        if (s.peer.count(out))
          continue; // matched and checked in an earlier micro-batch
        Type sent = cast<SendOp>(out).getInput().getType();
        Type received = cast<RecvOp>(in).getType();
        if (sent != received) {
          auto count = [](Type t) {
            return cast<RankedTensorType>(t).getNumElements();
          };
          InFlightDiagnostic diag = out->emitOpError()
                                    << "sends " << sent << " to pipeline stage "
                                    << b << ", whose matching dist.recv (its "
                                    << ordinal(i) << " from stage " << a
                                    << ") receives " << received;
          if (count(sent) != count(received))
            diag << " (" << count(sent) << " elements, not " << count(received)
                 << ")";
          diag.attachNote(in->getLoc()) << "the matching dist.recv";
          return diag;
        }
        s.peer[out] = in;
        s.peer[in] = out;
      }
      size_t nOut = outEvents.size(), nIn = inEvents.size();
      if (nOut > nIn)
        return outEvents[nIn]->op->emitOpError()
               << "sends to pipeline stage " << b << " (its send "
               << ordinal(nIn) << " there" << microBatchOf(*outEvents[nIn])
               << "), but stage " << b << " has only " << nIn
               << " dist.recv from stage " << a << " on mesh axis '" << axis
               << "'";
      if (nIn > nOut)
        return inEvents[nOut]->op->emitOpError()
               << "receives from pipeline stage " << a << " (its recv "
               << ordinal(nOut) << " from there"
               << microBatchOf(*inEvents[nOut]) << "), but stage " << a
               << " has only " << nOut << " dist.send to stage " << b
               << " on mesh axis '" << axis << "'";
    }
  return s;
}

LogicalResult
PipelineSchedule::run(function_ref<LogicalResult(Operation *)> visit) const {
  int64_t p = stages.size();
  SmallVector<size_t> pos(p, 0);
  // issued[a][b]: how many of a's sends to b were issued.
  std::vector<std::vector<int64_t>> issued(p, std::vector<int64_t>(p, 0));
  DenseSet<Operation *> visited;
  auto blocked = [&](int64_t k, const Event &e) {
    return e.from >= 0 && issued[e.from][k] <= e.index;
  };
  auto done = [&](int64_t k) { return pos[k] == events[k].size(); };
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t k = 0; k < p; ++k)
      while (!done(k) && !blocked(k, events[k][pos[k]])) {
        Operation *op = events[k][pos[k]].op;
        if (visited.insert(op).second && failed(visit(op)))
          return failure();
        if (auto it = sendTo.find(op); it != sendTo.end())
          ++issued[k][it->second];
        ++pos[k];
        progress = true;
      }
  }
  int64_t first = 0;
  while (first < p && done(first))
    ++first;
  if (first == p)
    return success();
  // Every stage not finished waits at a recv (match() saw every send of a
  // finished stage issued, so its peers are not waiting for it).
  const Event &at = events[first][pos[first]];
  InFlightDiagnostic diag = at.op->emitOpError()
                            << "pipeline deadlock: stage " << first
                            << " waits at this recv" << microBatchOf(at);
  llvm::SmallSet<int64_t, 8> seen;
  seen.insert(first);
  for (int64_t k = first;;) {
    int64_t from = events[k][pos[k]].from;
    diag << " for stage " << from;
    if (done(from) || !seen.insert(from).second)
      break;
    const Event &waits = events[from][pos[from]];
    diag << ", which waits at its recv" << microBatchOf(waits);
    diag.attachNote(waits.op->getLoc())
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

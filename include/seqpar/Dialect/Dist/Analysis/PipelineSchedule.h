//===- PipelineSchedule.h - the stages' point-to-point traffic --*- C++ -*-===//
//
// The step functions of a pipeline (one per stage, tfm.pipeline_stage k of
// P) talk with dist.send / dist.recv on the mesh's pipeline axis. The n-th
// send of stage a to stage b (offsets wrap around the axis) is received by
// the n-th recv of stage b from stage a. A send never waits for its recv;
// a recv waits until its send was issued. This matches them, checks their
// types, and runs the stages in an order that respects the waits, or finds
// that they deadlock. A micro-batch loop is run as it executes: its body's
// ops once per micro-batch, the forward and backward parts of a loop with
// a lag in their 1F1B order. See docs/design.md, "Pipeline point-to-point
// check".
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_PIPELINESCHEDULE_H
#define SEQPAR_DIALECT_DIST_ANALYSIS_PIPELINESCHEDULE_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace seqpar::dist {
class PipelineSchedule {
public:
  /// Matches the sends and recvs on `axis` (the pipeline axis of `mesh`)
  /// of `stages` (stage k is `stages[k]`). An unmatched op, or a pair whose
  /// types differ, is an error at the op naming the peer stage.
  static mlir::FailureOr<PipelineSchedule>
  match(llvm::ArrayRef<mlir::func::FuncOp> stages, MeshOp mesh,
        llvm::StringRef axis);

  /// Calls `visit` once on every op of every stage, each stage's in order
  /// (an op of a micro-batch loop's body where it first runs, the loop
  /// after its last micro-batch), in an interleaving where each recv comes
  /// after its send (stages taken lowest first as far as they get). If the
  /// stages deadlock, an error at the blocked recv of the lowest stage
  /// naming the stages and micro-batches that wait for each other. A
  /// failing `visit` stops the run.
  mlir::LogicalResult
  run(llvm::function_ref<mlir::LogicalResult(mlir::Operation *)> visit) const;

  /// The send that recv `recv` receives from (null for an op not matched
  /// here).
  mlir::Operation *sendOf(mlir::Operation *recv) const {
    return peer.lookup(recv);
  }
  /// The stage of a function or op of the pipeline.
  int64_t stageOf(mlir::Operation *op) const;
  int64_t numStages() const { return stages.size(); }

private:
  /// One execution of an op: of micro-batch `microBatch` (-1: none), and
  /// for a recv on the axis the stage it receives from and its index among
  /// the recvs from there.
  struct Event {
    mlir::Operation *op;
    int64_t microBatch = -1;
    int64_t from = -1, index = -1;
  };

  llvm::SmallVector<mlir::func::FuncOp> stages;
  /// Each stage's ops in the order they run.
  llvm::SmallVector<llvm::SmallVector<Event>> events;
  /// recv -> its send, send -> its recv (the same in every micro-batch).
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> peer;
  /// A send's stage it sends to.
  llvm::DenseMap<mlir::Operation *, int64_t> sendTo;
};

/// sp-verify's check of the pipeline stage functions of `module` (those
/// marked tfm.train_step, tfm.forward and tfm.eval_step): their traffic on
/// the pipeline axis of `mesh` is matched and cannot deadlock. For train
/// steps with tfm-autodiff's record it also runs the gradient-accounting
/// proof over all stages at once (GradAccounting.h). Functions of a single
/// stage are left to the per-function checks.
mlir::LogicalResult verifyPipelines(mlir::ModuleOp module, MeshOp mesh);
} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_PIPELINESCHEDULE_H

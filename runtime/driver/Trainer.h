//===- Trainer.h - a compiled program's run, in its phases ------*- C++ -*-===//
//
// main() of a compiled seqpar program (Main.cpp) runs a Trainer:
//
//   setUp     flags, trace, model description, device, mesh, the checks a
//             run must pass before it draws anything (flags the program
//             makes meaningless, output paths, data, schedule, loss scale);
//   prepare   parameters drawn, loaded (--init-from) or resumed
//             (--resume: the checkpoint's parameters, optimizer state,
//             schedule, seeds and data position), the arena, the token
//             inputs and the optimizer state allocated, the metrics log
//             opened;
//   train     the steps: each its batch, schedule and loss scale, the step,
//             the non-finite policy, a checkpoint when due, its progress
//             line and metrics, validation after it when due;
//   finish    the dumps (--dump-params, --dump-outputs), the Hugging Face
//             export, the loss scaler's and memory summaries, the pipeline
//             bubble, the trace, and every buffer released.
//
// Every phase ends the job on an error (Failure.h) on every rank.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_TRAINER_H
#define SPRT_DRIVER_TRAINER_H

#include "Batch.h"
#include "Bubble.h"
#include "Checkpoint.h"
#include "Eval.h"
#include "FileIO.h"
#include "Flags.h"
#include "GraphStep.h"
#include "LossScale.h"
#include "Model.h"
#include "Params.h"
#include "Schedule.h"
#include "StepReport.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace sprt {

class Trainer {
public:
  /// Parses the flags and sets up what the steps need. Returns -1 to go
  /// on, or the process's exit code (0 after --help).
  int setUp(int argc, char **argv);
  /// The parameters, buffers and optimizer state; a resumed run's state.
  void prepare();
  /// Runs the steps after the resume point up to --steps.
  void train();
  /// Writes what the run was asked for at its end and releases everything.
  void finish();

private:
  /// What the run needs checked and read before anything is drawn: flags
  /// the program makes meaningless, the export directory and output paths,
  /// the data and validation data, the epochs, the schedule and the loss
  /// scale.
  void checkRun();
  /// --resume: the checkpoint's state, and the run set to go on from it.
  void resume();
  /// One step: its inputs, the program's seqpar_step, its result.
  void runStep(int64_t step);
  /// The non-finite policy (--on-nonfinite) and the loss scaler on a step's
  /// result; what was not finite ("" if all was).
  std::string checkFinite(int64_t step);
  /// Saves a checkpoint of `step` when one is due.
  void checkpoint(int64_t step);
  /// --dump-grads after the last step.
  void dumpGrads();
  /// The progress line (stdout) and the metrics line (--log), rank 0.
  void report(int64_t step, const std::string &bad);
  /// Validation after the step it is pending for, if any.
  void evaluatePending();

  Flags flags;
  Model model;
  int rank = 0;
  std::string traceTo;
  std::unique_ptr<Batcher> batcher, valid;
  Schedule schedule;
  LossScaler scaler;
  std::unique_ptr<Params> params;
  std::chrono::steady_clock::time_point paramStart;
  double paramSeconds = 0.0;
  const char *paramsFrom = "drawn";
  /// Device memory: the arena, the token inputs, the optimizer's moments
  /// (`owned` of `state`'s entries; the master weights after them are
  /// Params').
  char *arena = nullptr;
  int64_t tokenBytes = 0;
  int64_t *ids = nullptr, *labels = nullptr;
  std::vector<float *> state;
  size_t owned = 0;
  /// Where the run stands (the checkpoint's record).
  ResumePoint at{0, 0, 0};
  std::unique_ptr<Evaluator> evaluator;
  /// The step's scalars (loss, gradient norm), which the step copies to the
  /// host asynchronously (sprt_host_alloc: a replayed step's copy lands
  /// there too).
  float *scalars = nullptr;
  /// How steps run (eager, or captured and replayed), and the bytes sent
  /// per axis by the captured step, which a replay counts again.
  std::unique_ptr<GraphStep> graphs;
  std::vector<int64_t> capturedBytes;
  std::vector<float *> grads;
  LineFile log;
  StepResult r;
  /// When the step being run started (its time includes its checkpoint).
  std::chrono::steady_clock::time_point stepStart;
  BubbleMeter bubble;
  int64_t firstStep = 1, firstCounted = 1;
  /// Validation pending after this step (0: none), run before the next
  /// step or at the end so that the step's own figures exclude it; the
  /// hyperparameters of the last step.
  int64_t evaluateAfter = 0;
  std::vector<double> table;
};

} // namespace sprt

#endif // SPRT_DRIVER_TRAINER_H

//===- Flags.h - the flags of a compiled program ----------------*- C++ -*-===//

#ifndef SPRT_DRIVER_FLAGS_H
#define SPRT_DRIVER_FLAGS_H

#include "LossScale.h"
#include "Schedule.h"

#include <cstdint>
#include <string>

namespace sprt {

struct Flags {
  int64_t steps = 1;
  /// --epochs E: as many steps as E epochs of --data take (instead of
  /// --steps; Main computes them from the data).
  int64_t epochs = 0;
  bool hasSteps = false;
  uint64_t seed = 1234;
  bool hasSeed = false;
  std::string data, initFrom, log, dumpParams, dumpOutputs, dumpGrads;
  std::string checkpointDir;
  /// The element type of --dump-params / --dump-grads: "f32", "bf16",
  /// "f16", or empty for each parameter's own (the model's precision).
  std::string dumpDtype;
  /// --export-hf DIR: a Hugging Face model directory written at the end
  /// (HfExport.h); --export-shard-bytes: the largest shard (0: the
  /// default, 5 GB).
  std::string exportHf;
  int64_t exportShardBytes = 0;
  int64_t saveEvery = 0;
  bool resume = false;
  /// --overwrite-checkpoints: write into a --checkpoint-dir that holds
  /// another run's checkpoints (Outputs.h) without continuing them.
  bool overwriteCheckpoints = false;
  /// --pack-documents: whole documents of --data (paragraphs ended by a
  /// blank line) packed one after another into each sequence, positions
  /// restarting at 0 in each, the label of a document's last token -100.
  bool packDocuments = false;
  /// --check-tied: after every step, the copies of each parameter several
  /// pipeline stages hold are compared (TiedCheck.h).
  bool checkTied = false;
  /// --init-from-partial: parameters the --init-from file lacks keep their
  /// drawn values and its tensors the model lacks are skipped, both listed
  /// (without it, either is an error).
  bool initFromPartial = false;
  /// --shuffle: raw text read in shuffled epochs of windows as tokenized
  /// data is (SampleOrder.h); tokenized data always is unless packed.
  bool shuffle = false;
  /// --data-seed: the seed of the sample order (default: --seed).
  uint64_t dataSeed = 0;
  bool hasDataSeed = false;
  /// --valid-data FILE --eval-every N --eval-steps K: every N steps and
  /// after the last, K forward-only batches of FILE (Eval.h).
  std::string validData;
  int64_t evalEvery = 0, evalSteps = 0;
  /// Seconds a collective may take before the job is aborted.
  double timeout = 600.0;
  /// --wait spin: a rank waiting on a transfer keeps its core instead of
  /// yielding it after a short spin (World::setSpinWait).
  bool spinWait = false;
  /// --comm nccl|mpi|mpi-staged: how the ranks' data collectives travel
  /// (World::useComm); empty: the program's default.
  std::string comm;
  /// On a NaN or Inf loss or gradient norm: stop the run, or skip the
  /// step's update and go on.
  bool skipNonFinite = false;
  /// The optimizer's hyperparameters and the learning-rate schedule
  /// (Schedule.h).
  ScheduleFlags schedule;
  /// --trace FILE|DIR: each rank's trace (Observability.h); "" for none.
  std::string trace;
  /// --peak-flops: one rank's peak FLOP/s for MFU, or 0 when not given.
  double peakFlops = 0;
  /// The dynamic loss scaler's flags (LossScale.h); a program without
  /// loss scaling refuses them.
  LossScaleFlags lossScale;
  /// --cuda-graph=true|false: on a backend with graphs, the training step
  /// captured once and replayed (GraphStep.h); default true.
  bool cudaGraph = true;
};

/// Parses the command line strictly: an unknown flag, a flag given twice, a
/// missing or empty value, a number out of range or with trailing
/// characters, or flags that conflict or that the others make meaningless
/// are errors. Returns false with `error` set; sets `help` for --help.
bool parseFlags(int argc, char **argv, Flags &flags, bool &help,
                std::string &error);

/// The usage line of `argv0`.
std::string usage(const char *argv0);

} // namespace sprt

#endif // SPRT_DRIVER_FLAGS_H

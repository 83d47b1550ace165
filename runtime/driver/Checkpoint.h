//===- Checkpoint.h - save and resume training ------------------*- C++ -*-===//
//
// A checkpoint is a directory DIR/step-NNNNNNNN with model.safetensors (every
// parameter, whole, under its Hugging Face name, in F32 whatever the model's
// precision: the master weights; its metadata "seqpar.model_dtype" says the
// model's), optimizer.safetensors (the
// AdamW moments as NAME.exp_avg / NAME.exp_avg_sq) and checkpoint.json (the
// step, the seed, which determines the data order and every random number,
// and the data file, and the learning-rate schedule and hyperparameters of
// the run: Schedule.h, and, for a program with loss scaling, the loss
// scaler's state as "loss_scale": LossScale.h). It is written to
// DIR/.step-NNNNNNNN.tmp and renamed, then DIR/latest is replaced the same way:
// a killed run never leaves a broken checkpoint behind. Tensors are stored
// whole, so a checkpoint saved with one tp/dp layout loads into any other.
//
// Nothing in a checkpoint is trusted on --resume: checkpoint.json must have
// the format and version this program writes, every field its type, and the
// model's identity (model type, precision, every parameter's name, shape and
// dtype) must equal the program's (a checkpoint without a precision is
// F32's, as every one written before it was recorded); every tensor file must
// have been saved at the same step (its metadata says so), a program with
// loss scaling needs the scaler's state and one without refuses it, and every
// tensor's bytes must match their checksum. A step whose parameters are not all
// finite is never saved.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_CHECKPOINT_H
#define SPRT_DRIVER_CHECKPOINT_H

#include "LossScale.h"
#include "Params.h"
#include "Schedule.h"

#include <string>
#include <vector>

namespace sprt {

/// Where a run stands: what a checkpoint records besides the tensors.
struct ResumePoint {
  int64_t step = 0;
  uint64_t seed = 0;
  /// Steps whose update was skipped (--on-nonfinite skip); AdamW's step
  /// count is step - skipped.
  int64_t skipped = 0;
  /// The run's schedule; with the step it fixes every later learning rate.
  Schedule schedule;
  /// The loss scaler's state, when the program scales its loss
  /// (LossScale.h); its skipped steps are among `skipped`.
  bool hasLossScale = false;
  LossScaleState lossScale;
  /// The data position after `step` (Batch.h, SampleOrder.h): the seed of
  /// the sample order, the epoch (0-based) and the sample index in it of
  /// the next sequence, and the samples of an epoch (0 for unshuffled raw
  /// text). A checkpoint without a data seed (written before it was
  /// recorded) gets the seed.
  uint64_t dataSeed = 0;
  int64_t epoch = 0, sample = 0, samplesPerEpoch = 0;
  /// The sequences steps 1..`step` read (Batcher::firstSequence of the next
  /// step): where a resumed run reads on, whatever its sequences per step.
  /// -1 for a checkpoint that does not record it (written before
  /// data_position was).
  int64_t sequences = 0;
};

/// Saves step `at.step` (collective: every rank calls it; rank 0 writes).
bool saveCheckpoint(const std::string &dir, const ResumePoint &at,
                    const std::string &dataFile, const Model &model,
                    Params &params, const std::vector<float *> &state,
                    std::string &error);

/// The bytes of the files of step `step`'s checkpoint in `dir` (as the file
/// system reports them), or -1 when it has none.
int64_t checkpointBytes(const std::string &dir, int64_t step);

/// Loads the latest checkpoint of `dir` into the parameters and optimizer
/// state. False with `error` set if there is none or it does not fit.
bool resumeCheckpoint(const std::string &dir, const Model &model,
                      Params &params, const std::vector<float *> &state,
                      ResumePoint &at, std::string &error);

} // namespace sprt

#endif // SPRT_DRIVER_CHECKPOINT_H

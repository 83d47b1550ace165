//===- Checkpoint.h - save and resume training ------------------*- C++ -*-===//
//
// A checkpoint is a directory DIR/step-NNNNNNNN with model.safetensors (every
// parameter, whole, under its Hugging Face name), optimizer.safetensors (the
// AdamW moments as NAME.exp_avg / NAME.exp_avg_sq) and checkpoint.json (the
// step, the seed, which determines the data order and every random number,
// and the data file). It is written to DIR/.step-NNNNNNNN.tmp and renamed,
// then DIR/latest is replaced the same way: a killed run never leaves a
// broken checkpoint behind. Tensors are stored whole, so a checkpoint saved
// with one tp/dp layout loads into any other.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_CHECKPOINT_H
#define SPRT_CORE_CHECKPOINT_H

#include "Params.h"

#include <string>
#include <vector>

namespace sprt {

struct ResumePoint {
  int64_t step = 0;
  uint64_t seed = 0;
};

/// Saves step `step` (collective: every rank calls it; rank 0 writes).
bool saveCheckpoint(const std::string &dir, int64_t step, uint64_t seed,
                    const std::string &dataFile, const Model &model,
                    Params &params, const std::vector<float *> &state,
                    std::string &error);

/// Loads the latest checkpoint of `dir` into the parameters and optimizer
/// state. False with `error` set if there is none or it does not fit.
bool resumeCheckpoint(const std::string &dir, const Model &model,
                      Params &params, const std::vector<float *> &state,
                      ResumePoint &at, std::string &error);

} // namespace sprt

#endif // SPRT_CORE_CHECKPOINT_H

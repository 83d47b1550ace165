//===- Eval.h - validation loss during training -----------------*- C++ -*-===//
//
// --valid-data FILE --eval-every N --eval-steps K: every N steps and after
// the last, K batches of FILE (batches 1..K of its own Batcher: the same
// batches every time) run through the program's step on scratch copies of
// the parameters and the optimizer state, refreshed from the real ones
// before each batch. The program exports one entry point (seqpar_step: the
// forward, the backward and the update of a training program, the forward of
// a forward-only one), so the validation loss is the step's forward loss and
// the update it makes lands in the scratch copies only: the training's
// parameters, optimizer state, schedule, loss scale and data order are never
// touched, and the training losses with and without --valid-data are equal.
// Batch k draws the random numbers (dropout) of step k, so its loss is the
// loss step k of a run on the validation data from these parameters reports
// (tested: eval.test). The scratch copies double the parameter and
// optimizer-state memory.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_EVAL_H
#define SPRT_CORE_EVAL_H

#include "Batch.h"
#include "Model.h"

#include <vector>

namespace sprt {

class Evaluator {
public:
  /// The batches of `valid` through the step; `params` and `state` are the
  /// training's (`stateBytes`: each state entry's bytes, 0 for a null one).
  Evaluator(const Model &model, Batcher &valid, float **params,
            const std::vector<float *> &state,
            const std::vector<int64_t> &stateBytes);
  ~Evaluator();
  Evaluator(const Evaluator &) = delete;
  Evaluator &operator=(const Evaluator &) = delete;

  /// The mean loss of `batches` batches; `hyperparameters` is the step's
  /// table, `ids` and `labels` the device token buffers, `arena` the
  /// step's arena.
  double run(int64_t batches, const std::vector<double> &hyperparameters,
             char *arena, int64_t *ids, int64_t *labels);

private:
  const Model &model;
  Batcher &valid;
  float **params;
  std::vector<float *> state;
  std::vector<int64_t> paramBytes, stateBytes;
  std::vector<float *> scratchParams, scratchState;
};

} // namespace sprt

#endif // SPRT_CORE_EVAL_H

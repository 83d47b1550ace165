//===- Eval.h - validation loss during training -----------------*- C++ -*-===//
//
// --valid-data FILE --eval-every N --eval-steps K: every N steps and after
// the last, K batches of FILE (batches 1..K of its own Batcher: the same
// batches every time) through the program's evaluation step, `seqpar_eval`
// (tfm-eval-step: the forward without dropout, as PyTorch's model.eval()),
// one micro-batch at a time, on the training's parameters. It writes only
// the arena and the loss: the training's parameters, optimizer state,
// schedule, loss scale and data order are never touched, and the training
// losses with and without --valid-data are equal. A batch's loss is the
// mean over its tokens whose label is not ignored (-100): the micro-batches'
// losses weighted by their token counts. A forward-only program (no
// optimizer) evaluates through its step, which is its forward.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_EVAL_H
#define SPRT_DRIVER_EVAL_H

#include "Batch.h"
#include "Model.h"

#include <string>
#include <vector>

namespace sprt {

class Evaluator {
public:
  /// The batches of `valid` through the program's evaluation step on the
  /// parameters `params`.
  Evaluator(const Model &model, Batcher &valid, float **params);

  /// Why a program cannot evaluate (a train step without seqpar_eval), or
  /// empty when it can.
  static std::string unsupported(const Model &model);

  /// The mean loss of `batches` batches; `hyperparameters` is the step's
  /// table, `ids` and `labels` the device token buffers, `arena` the
  /// step's arena.
  double run(int64_t batches, const std::vector<double> &hyperparameters,
             char *arena, int64_t *ids, int64_t *labels);

private:
  const Model &model;
  Batcher &valid;
  float **params;
};

} // namespace sprt

#endif // SPRT_DRIVER_EVAL_H

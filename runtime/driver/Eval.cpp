//===- Eval.cpp - validation loss during training -------------------------===//

#include "Eval.h"
#include "Failure.h"

#include "sprt/device.h"
#include "sprt/runtime.h"

using namespace sprt;

Evaluator::Evaluator(const Model &model, Batcher &valid, float **params)
    : model(model), valid(valid), params(params) {}

std::string Evaluator::unsupported(const Model &model) {
  if (!model.training() || (model.hasEval && seqpar_eval))
    return "";
  return "--valid-data: the program has no evaluation step (seqpar_eval); "
         "compile it again with this sp-compile --train";
}

double Evaluator::run(int64_t batches,
                      const std::vector<double> &hyperparameters, char *arena,
                      int64_t *ids, int64_t *labels) {
  sprt_stream_t stream = sprt_current_stream();
  const int64_t tokens = valid.localTokens();
  const int64_t m = model.microBatches;
  // One micro-batch's local tokens, and its global rows of the step's batch.
  const int64_t perMicro = tokens / m;
  const int64_t rows = model.batch * model.seq;
  auto step = model.hasEval ? seqpar_eval : seqpar_step;
  std::vector<float> scalars(size_t(model.numScalars), 0.0f);
  std::vector<float *> grads(model.grads.size(), nullptr);
  std::vector<double> table = hyperparameters;
  double sum = 0.0;
  for (int64_t k = 1; k <= batches; ++k) {
    valid.build(k);
    std::string why = valid.unlabelled(k, "--valid-data batch");
    if (!why.empty())
      fatal(why);
    if (valid.packing())
      sprt_set_position_ids(valid.globalPositions(), valid.stepBatch(),
                            model.seq, int32_t(model.batchAxis));
    sprt_memcpy_to_device(ids, valid.localIds(), tokens * 8, stream);
    sprt_memcpy_to_device(labels, valid.localLabels(), tokens * 8, stream);
    double weighted = 0.0;
    int64_t counted = 0;
    for (int64_t i = 0; i < m; ++i) {
      sprt_set_micro_batch(i, m);
      step(arena, params, ids + i * perMicro, labels + i * perMicro,
           scalars.data(), grads.data(), nullptr, table.data());
      sprt_complete_sends();
      sprt_stream_synchronize(stream);
      // The loss is global (every rank has the same): the mean over the
      // micro-batch's counted tokens, which every rank counts alike.
      const int64_t *global = valid.globalLabels() + i * rows;
      int64_t count = 0;
      for (int64_t t = 0; t < rows; ++t)
        count += global[t] != Batcher::kIgnoreIndex;
      // A micro-batch without a counted token adds nothing (its own mean
      // is 0 / 0).
      if (count)
        weighted += double(scalars[0]) * double(count);
      counted += count;
    }
    sum += weighted / double(counted);
  }
  return sum / double(batches);
}

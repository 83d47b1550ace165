//===- Eval.cpp - validation loss during training -------------------------===//

#include "Eval.h"
#include "Comm.h"
#include "Failure.h"
#include "Memory.h"

#include "sprt/device.h"
#include "sprt/runtime.h"

using namespace sprt;

Evaluator::Evaluator(const Model &model, Batcher &valid, float **params,
                     const std::vector<float *> &state,
                     const std::vector<int64_t> &stateBytes)
    : model(model), valid(valid), params(params), state(state),
      stateBytes(stateBytes) {
  for (size_t i = 0; i < model.params.size(); ++i) {
    const ParamInfo &p = model.params[i];
    paramBytes.push_back(
        params[i] ? p.localElements() * int64_t(dtypeBytes(p.dtype)) : 0);
  }
  auto copies = [](const std::vector<int64_t> &bytes, MemoryCategory category,
                   std::vector<float *> &out) {
    for (int64_t n : bytes) {
      out.push_back(nullptr);
      if (!n)
        continue;
      out.back() = static_cast<float *>(allocate(n, category));
      if (!out.back())
        fatal("cannot allocate " + std::to_string(n) + " bytes of " +
              sprt_backend_name() +
              " memory for the validation's scratch copies");
    }
  };
  copies(paramBytes, MemoryCategory::Parameters, scratchParams);
  copies(stateBytes, MemoryCategory::OptimizerState, scratchState);
}

Evaluator::~Evaluator() {
  for (float *p : scratchParams)
    if (p)
      release(p);
  for (float *p : scratchState)
    if (p)
      release(p);
}

double Evaluator::run(int64_t batches,
                      const std::vector<double> &hyperparameters, char *arena,
                      int64_t *ids, int64_t *labels) {
  sprt_stream_t stream = sprt_current_stream();
  const int64_t tokenBytes = valid.localTokens() * int64_t(sizeof(int64_t));
  std::vector<float> scalars(size_t(model.numScalars), 0.0f);
  std::vector<float *> grads(model.grads.size(), nullptr);
  std::vector<double> table = hyperparameters;
  double sum = 0.0;
  for (int64_t k = 1; k <= batches; ++k) {
    for (size_t i = 0; i < scratchParams.size(); ++i)
      if (scratchParams[i])
        sprt_copy_2d(scratchParams[i], paramBytes[i], params[i], paramBytes[i],
                     paramBytes[i], 1, stream);
    for (size_t i = 0; i < scratchState.size(); ++i)
      if (scratchState[i])
        sprt_copy_2d(scratchState[i], stateBytes[i], state[i], stateBytes[i],
                     stateBytes[i], 1, stream);
    valid.build(k);
    // Batch k draws the random numbers (dropout) of step k: every
    // evaluation the same, and those of a run's step k on this batch.
    sprt_set_step(k);
    if (valid.packing())
      sprt_set_position_ids(valid.globalPositions(), valid.stepBatch(),
                            model.seq, int32_t(model.batchAxis));
    sprt_memcpy_to_device(ids, valid.localIds(), tokenBytes, stream);
    sprt_memcpy_to_device(labels, valid.localLabels(), tokenBytes, stream);
    seqpar_step(arena, scratchParams.data(), ids, labels, scalars.data(),
                grads.data(), scratchState.data(), table.data());
    sprt_complete_sends();
    sprt_stream_synchronize(stream);
    // The loss is global: every rank has the same.
    sum += double(scalars[0]);
  }
  return sum / double(batches);
}

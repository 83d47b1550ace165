//===- LossScaleProgram.cpp - a hand-written loss-scaled program ----------===//
//
// main() (sprt_main) linked with a one-parameter train step written by hand,
// so the runtime's loss scaling is run end to end before the compiler emits
// such programs: loss = 0.5 |w|^2, whose gradient w is computed from the
// loss times the table's loss_scale S as g = w * S, and overflows as an f16
// gradient would (any |g| > 1000 becomes inf); then the clip factor
// (sprt_op_clip_scale with S) and SGD, as a compiled train step does.
// LossScaleMainTest.py checks its runs against a plain reference.
//
//===----------------------------------------------------------------------===//

#include "sprt/runtime.h"

#include <cmath>
#include <cstdint>

extern "C" {
// Declared extern by sprt/abi.h: a const definition alone would be internal.
const char seqpar_model_json[] = R"({
  "format_version": 3, "eval_step": false,
  "model_type": "loss-scale-test", "mesh": {"axes": ["dp"], "sizes": [1]},
  "seq": 4, "batch": 1, "vocab": 256, "arena_bytes": 64, "batch_axis": -1,
  "planned": {"parameters": 16, "optimizer_state": 0, "tokens": 64,
              "arena": 64, "peak_bytes": 144},
  "precision": "f16", "scalars": 2, "grads": [0], "optimizer": "sgd",
  "hyperparameters": [{"name": "grad_clip", "default": 1.0},
                      {"name": "loss_scale", "default": 1.0},
                      {"name": "lr", "default": 0.1}],
  "params": [{"name": "w", "shape": [4], "local_shape": [4], "init": "ones",
              "splits": []}]})";

void seqpar_step(char *arena, float *const *params, const int64_t *,
                 const int64_t *, float *scalars, float **grads, float *const *,
                 const double *hyperparameters) {
  // As compiled code does: the step's values first (the learning rate, slot
  // 2, is read from them).
  sprt_upload_step_values(hyperparameters, 3);
  const double clip = hyperparameters[0], lossScale = hyperparameters[1];
  float *w = params[0], *g = reinterpret_cast<float *>(arena);
  float *sumsq = g + 4, *scale = g + 5, *norm = g + 6;
  double loss = 0.0;
  for (int i = 0; i < 4; ++i) {
    loss += 0.5 * double(w[i]) * double(w[i]);
    g[i] = float(double(w[i]) * lossScale);
    if (std::fabs(g[i]) > 1000.0f)
      g[i] = INFINITY;
  }
  const float *gs[] = {g};
  const int64_t sizes[] = {4};
  sprt_op_sum_squares(1, gs, sizes, sumsq);
  sprt_op_clip_scale(sumsq, clip, lossScale, scale, norm);
  scalars[0] = float(loss);
  scalars[1] = *norm;
  grads[0] = g;
  sprt_op_sgd(w, g, scale, 4, /*lr_slot=*/2, 0.0, -1, -1);
}
}

//===- LossScale.h - dynamic loss scaling of fp16 training ------*- C++ -*-===//
//
// A program compiled with fp16 precision computes its gradients from the
// loss times a run-time hyperparameter "loss_scale" (tfm.hyperparameter
// loss_scale) and unscales them in the clip factor (sprt_op_clip_scale).
// The runtime sets that hyperparameter from a dynamic loss scaler, as
// torch.cuda.amp.GradScaler: the scale starts at --loss-scale (65536); a
// step whose gradient norm is not finite is an overflow: the optimizers
// skipped its update (the clip factor was NaN), the scale is multiplied by
// --loss-scale-backoff (0.5), not below --min-loss-scale (1), and the step
// is counted as skipped; after --loss-scale-window (2000) consecutive finite
// steps the scale is multiplied by --loss-scale-growth (2) (not past the
// largest f32). --loss-scale-window 0 keeps the scale static (overflow
// steps are still skipped). The scaler's state (scale, consecutive finite
// steps, skipped steps) is saved with a checkpoint and continues on
// --resume; its flags are the run's.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_LOSSSCALE_H
#define SPRT_DRIVER_LOSSSCALE_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sprt {

/// The name of the hyperparameter a loss-scaled program reads.
inline constexpr const char *kLossScaleName = "loss_scale";

/// The loss-scale flags as given (parsed with the others in Flags.cpp).
struct LossScaleFlags {
  std::optional<double> scale, growth, backoff, minScale;
  std::optional<int64_t> window;

  /// The first flag given ("--loss-scale", ...), or nullptr when none is.
  const char *firstGiven() const {
    return scale      ? "--loss-scale"
           : window   ? "--loss-scale-window"
           : growth   ? "--loss-scale-growth"
           : backoff  ? "--loss-scale-backoff"
           : minScale ? "--min-loss-scale"
                      : nullptr;
  }
};

/// What a checkpoint records of the scaler.
struct LossScaleState {
  double scale = 65536.0;
  /// Consecutive steps with a finite gradient norm since the last change.
  int64_t goodSteps = 0;
  /// Steps skipped for an overflow so far.
  int64_t skipped = 0;
};

class LossScaler {
public:
  double initial = 65536.0, growth = 2.0, backoff = 0.5, minScale = 1.0;
  int64_t window = 2000;
  LossScaleState state;

  /// Resolves the flags against the hyperparameters the program reads
  /// (name, default): enabled iff it reads "loss_scale". False with `error`
  /// for a flag given to a program without loss scaling or an initial scale
  /// below the minimum.
  bool resolve(const LossScaleFlags &flags,
               const std::vector<std::pair<std::string, double>> &program,
               std::string &error);
  bool enabled() const { return slot >= 0; }
  /// The slot of "loss_scale" in the step's hyperparameter table, or -1.
  int64_t tableSlot() const { return slot; }
  /// After a step: `finiteNorm` false is an overflow (backs off, counts the
  /// skipped step); true counts a good step (grows after `window`).
  void update(bool finiteNorm);

private:
  int64_t slot = -1;
};

/// The state as checkpoint.json records it, and back (false with `error`
/// naming the field, prefixed with `where`; the skipped steps may not
/// exceed `step`).
nlohmann::json lossScaleToJson(const LossScaleState &state);
bool lossScaleFromJson(const nlohmann::json &j, const std::string &where,
                       int64_t step, LossScaleState &state, std::string &error);

} // namespace sprt

#endif // SPRT_DRIVER_LOSSSCALE_H

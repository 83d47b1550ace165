//===- Schedule.h - run-time hyperparameters and the lr schedule -*- C++
//-*-===//
//
// A train step reads its optimizer's hyperparameters (tfm.hyperparameter)
// from a table the runtime passes to every step: the model description
// lists them by slot with the compile-time values as defaults, the
// program's flags override them, and the learning rate follows Megatron-LM's
// schedule (OptimizerParamScheduler): a linear warm-up from 0 to --lr over
// --warmup-steps, then a cosine or linear decay to --min-lr at
// --decay-steps (counted from the first step, warm-up included; default
// --steps), --min-lr after it; or the constant --lr after the warm-up. The
// update after n applied updates uses the lr at n, so the first update of a
// warm-up has lr 0, as in Megatron. A checkpoint records the resolved
// schedule; a resumed run must give the same one (or --override-schedule).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_SCHEDULE_H
#define SPRT_DRIVER_SCHEDULE_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sprt {

enum class Decay { Constant, Linear, Cosine };

/// The hyperparameter flags as given; unset ones take the program's
/// defaults.
struct ScheduleFlags {
  std::optional<double> lr, minLr, beta1, beta2, eps, weightDecay, gradClip;
  std::optional<int64_t> warmupSteps, decaySteps;
  std::optional<Decay> decay;
  /// On --resume, the flags win over the checkpoint's schedule.
  bool overrideSchedule = false;
};

/// Whether `flag` is one of the schedule's flags that take a value.
bool isScheduleFlag(const std::string &flag);
/// Parses the value of schedule flag `flag` into `flags`; false with
/// `error` naming the flag for a bad value.
bool parseScheduleFlag(const std::string &flag, const char *value,
                       ScheduleFlags &flags, std::string &error);
/// The usage text of the schedule's flags.
std::string scheduleUsage();

/// A run-time hyperparameter of the program: its name (the model
/// description's) and the compile-time default.
using Hyperparameter = std::pair<std::string, double>;

/// The schedule and hyperparameters of a run, resolved.
struct Schedule {
  /// Whether the program reads a learning rate (a train step does).
  bool hasLr = false;
  double lr = 0.0, minLr = 0.0;
  int64_t warmupSteps = 0;
  /// 0 for a constant schedule (it has no decay).
  int64_t decaySteps = 0;
  Decay decay = Decay::Constant;
  /// The other hyperparameters the program reads, by name.
  std::vector<Hyperparameter> fixed;

  /// The learning rate of the update that follows `completed` applied
  /// updates.
  double lrAt(int64_t completed) const;
  /// The step's table: slot i holds the value of `program[i]`.
  std::vector<double> table(const std::vector<Hyperparameter> &program,
                            int64_t completed) const;
};

/// Resolves `flags` against the hyperparameters the program reads
/// (`program`, with their defaults; "loss_scale" is left to the loss
/// scaler: LossScale.h) and the run's --steps. False with
/// `error` naming the flag for a flag the program has no use for or a
/// schedule that does not hold together.
bool resolveSchedule(const ScheduleFlags &flags,
                     const std::vector<Hyperparameter> &program, int64_t steps,
                     Schedule &schedule, std::string &error);

/// The schedule as a checkpoint records it, and back (false with `error`
/// naming the field, prefixed with `where`).
nlohmann::json scheduleToJson(const Schedule &schedule);
bool scheduleFromJson(const nlohmann::json &j, const std::string &where,
                      Schedule &schedule, std::string &error);

/// On --resume: the run's schedule `now` against the checkpoint's `saved`.
/// Equal: true. Different: false with `error` naming the first flag that
/// differs, or with `override` true, true with `warning` listing every
/// difference (the run continues with `now`).
bool checkResumedSchedule(const Schedule &saved, const Schedule &now,
                          bool override, const std::string &checkpoint,
                          std::string &warning, std::string &error);

/// `x` with the fewest digits that read back as `x` (for messages).
std::string shortestText(double x);

} // namespace sprt

#endif // SPRT_DRIVER_SCHEDULE_H

//===- ScheduleTest.cpp - the learning-rate schedule and its flags --------===//
//
// The schedule against a plain formula (Megatron-LM's get_lr written out per
// phase) and hand-computed points; the flags' errors; what a checkpoint
// records and how a resumed run is checked against it.
//
//===----------------------------------------------------------------------===//

#include "../driver/Schedule.h"
#include "../driver/Flags.h"
#include "FlagsTestUtil.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace sprt;

namespace {
/// The hyperparameters of an AdamW and an SGD train step, with defaults.
const std::vector<Hyperparameter> kAdamW = {
    {"grad_clip", 1.0}, {"lr", 3e-3},  {"beta1", 0.9},
    {"beta2", 0.999},   {"eps", 1e-8}, {"weight_decay", 0.0}};
const std::vector<Hyperparameter> kSgd = {
    {"grad_clip", 0.0}, {"lr", 0.1}, {"weight_decay", 0.01}};

/// The reference: warm-up, decay and floor as three plain cases.
double reference(double lr, double minLr, int64_t warmup, int64_t decaySteps,
                 const std::string &decay, int64_t n) {
  if (n <= warmup && warmup > 0)
    return lr * n / warmup;
  if (decay == "constant")
    return lr;
  if (n > decaySteps)
    return minLr;
  double t = double(n - warmup) / double(decaySteps - warmup);
  if (decay == "cosine")
    return minLr + (lr - minLr) * 0.5 * (1.0 + std::cos(std::acos(-1.0) * t));
  return minLr + (lr - minLr) * (1.0 - t);
}

/// The schedule of `args` for `program` and `steps`, or the error.
std::string resolve(std::vector<std::string> args,
                    const std::vector<Hyperparameter> &program, int64_t steps,
                    Schedule &s) {
  Flags f;
  std::string error;
  if (!parse(args, f, error))
    return error;
  if (!resolveSchedule(f.schedule, program, steps, s, error))
    return error;
  return "";
}
} // namespace

TEST(Schedule, FollowsThePlainFormula) {
  for (const char *decay : {"cosine", "linear", "constant"})
    for (int64_t warmup : {0, 1, 4}) {
      Schedule s;
      std::vector<std::string> args = {"--lr",           "0.003",
                                       "--warmup-steps", std::to_string(warmup),
                                       "--decay",        decay};
      if (std::string(decay) != "constant")
        args.insert(args.end(), {"--min-lr", "0.0003", "--decay-steps", "10"});
      ASSERT_EQ(resolve(args, kAdamW, 20, s), "");
      for (int64_t n = 0; n <= 14; ++n)
        EXPECT_NEAR(s.lrAt(n), reference(3e-3, 3e-4, warmup, 10, decay, n),
                    1e-15)
            << decay << " warm-up " << warmup << " after " << n << " updates";
    }
}

TEST(Schedule, HandComputedPoints) {
  Schedule s;
  ASSERT_EQ(resolve({"--lr", "1", "--min-lr", "0.1", "--warmup-steps", "4",
                     "--decay", "cosine", "--decay-steps", "12"},
                    kSgd, 100, s),
            "");
  // Warm-up from 0: the first update has lr 0 (Megatron), the fifth lr.
  EXPECT_EQ(s.lrAt(0), 0.0);
  EXPECT_EQ(s.lrAt(2), 0.5);
  EXPECT_EQ(s.lrAt(4), 1.0);
  // Half-way through the decay: cos(pi / 2) = 0, half of the way down.
  EXPECT_NEAR(s.lrAt(8), 0.55, 1e-15);
  EXPECT_NEAR(s.lrAt(12), 0.1, 1e-15);
  EXPECT_EQ(s.lrAt(13), 0.1);
  EXPECT_EQ(s.lrAt(1000), 0.1);
  ASSERT_EQ(resolve({"--lr", "1", "--min-lr", "0.1", "--warmup-steps", "4",
                     "--decay", "linear", "--decay-steps", "12"},
                    kSgd, 100, s),
            "");
  EXPECT_NEAR(s.lrAt(10), 0.325, 1e-15);
}

TEST(Schedule, DefaultsAreTheProgramsValuesExactly) {
  Schedule s;
  ASSERT_EQ(resolve({}, kAdamW, 6, s), "");
  for (int64_t n : {0, 1, 5, 1000}) {
    std::vector<double> table = s.table(kAdamW, n);
    ASSERT_EQ(table.size(), kAdamW.size());
    for (size_t i = 0; i < table.size(); ++i)
      EXPECT_EQ(table[i], kAdamW[i].second) << kAdamW[i].first;
  }
  // Flags replace their hyperparameter only; the table keeps the slots.
  ASSERT_EQ(resolve({"--beta2", "0.95", "--grad-clip", "0"}, kAdamW, 6, s), "");
  EXPECT_EQ(s.table(kAdamW, 3),
            (std::vector<double>{0.0, 3e-3, 0.9, 0.95, 1e-8, 0.0}));
  // --decay-steps defaults to --steps.
  ASSERT_EQ(resolve({"--decay", "linear"}, kSgd, 8, s), "");
  EXPECT_EQ(s.decaySteps, 8);
  EXPECT_EQ(s.lrAt(8), 0.0);
}

TEST(Schedule, BadFlagsNameTheFlag) {
  Schedule s;
  EXPECT_EQ(resolve({"--lr", "0"}, kAdamW, 6, s),
            "--lr must be a number > 0, got '0'");
  EXPECT_EQ(resolve({"--lr", "1e-3x"}, kAdamW, 6, s),
            "--lr must be a number > 0, got '1e-3x'");
  EXPECT_EQ(resolve({"--beta1", "1"}, kAdamW, 6, s),
            "--beta1 must be a number in [0, 1), got '1'");
  EXPECT_EQ(resolve({"--adam-eps", "-1"}, kAdamW, 6, s),
            "--adam-eps must be a number > 0, got '-1'");
  EXPECT_EQ(resolve({"--weight-decay", "nan"}, kAdamW, 6, s),
            "--weight-decay must be a number >= 0, got 'nan'");
  EXPECT_EQ(resolve({"--grad-clip", "-0.5"}, kAdamW, 6, s),
            "--grad-clip must be a number >= 0 (0: off), got '-0.5'");
  EXPECT_EQ(resolve({"--min-lr", "inf"}, kAdamW, 6, s),
            "--min-lr must be a number >= 0, got 'inf'");
  EXPECT_EQ(resolve({"--warmup-steps", "-1"}, kAdamW, 6, s),
            "--warmup-steps must be a non-negative integer, got '-1'");
  EXPECT_EQ(resolve({"--decay-steps", "0"}, kAdamW, 6, s),
            "--decay-steps must be a positive integer, got '0'");
  EXPECT_EQ(resolve({"--decay", "exponential"}, kAdamW, 6, s),
            "--decay must be 'cosine', 'linear' or 'constant', got "
            "'exponential'");
  EXPECT_EQ(resolve({"--lr"}, kAdamW, 6, s), "flag --lr needs a value");
  // Flags that do not hold together.
  EXPECT_EQ(resolve({"--decay", "cosine", "--lr", "1e-3", "--min-lr", "1e-2"},
                    kAdamW, 6, s),
            "--min-lr (0.01) must not exceed --lr (0.001)");
  EXPECT_EQ(resolve({"--decay", "cosine", "--warmup-steps", "6"}, kAdamW, 6, s),
            "--warmup-steps (6) must be less than --decay-steps (6, from "
            "--steps)");
  EXPECT_EQ(resolve({"--decay", "linear", "--warmup-steps", "3",
                     "--decay-steps", "2"},
                    kAdamW, 6, s),
            "--warmup-steps (3) must be less than --decay-steps (2)");
  EXPECT_EQ(resolve({"--min-lr", "1e-4"}, kAdamW, 6, s),
            "--min-lr needs --decay cosine or linear (after its warm-up a "
            "constant schedule keeps --lr)");
  EXPECT_EQ(resolve({"--decay-steps", "3"}, kAdamW, 6, s),
            "--decay-steps needs --decay cosine or linear (after its warm-up a "
            "constant schedule keeps --lr)");
  EXPECT_EQ(resolve({"--override-schedule"}, kAdamW, 6, s),
            "--override-schedule needs --resume");
  // Flags the program has no use for.
  EXPECT_EQ(resolve({"--beta1", "0.5"}, kSgd, 6, s),
            "--beta1: this program does not read beta1 (its optimizer's "
            "hyperparameters: grad_clip, lr, weight_decay)");
  EXPECT_EQ(resolve({"--lr", "0.5"}, {}, 6, s),
            "--lr needs a training program (sp-compile --train)");
  EXPECT_EQ(resolve({"--warmup-steps", "2"}, {}, 6, s),
            "--warmup-steps needs a training program (sp-compile --train)");
  EXPECT_EQ(resolve({}, {{"momentum", 0.9}}, 6, s),
            "the program reads hyperparameter 'momentum', which this runtime "
            "does not set");
}

TEST(Schedule, CheckpointRoundTripAndResume) {
  Schedule s, back, other;
  ASSERT_EQ(resolve({"--lr", "0.003", "--warmup-steps", "4", "--decay",
                     "cosine", "--min-lr", "3e-4"},
                    kAdamW, 6, s),
            "");
  std::string error, warning;
  ASSERT_TRUE(scheduleFromJson(nlohmann::json::parse(scheduleToJson(s).dump()),
                               "'f': field 'schedule", back, error))
      << error;
  EXPECT_EQ(scheduleToJson(back), scheduleToJson(s));
  for (int64_t n = 0; n < 8; ++n)
    EXPECT_EQ(back.lrAt(n), s.lrAt(n));
  EXPECT_TRUE(checkResumedSchedule(back, s, false, "ck", warning, error));
  EXPECT_EQ(warning, "");
  // A different flag is an error naming it, unless overridden.
  ASSERT_EQ(resolve({"--lr", "0.003", "--warmup-steps", "4", "--decay",
                     "cosine", "--min-lr", "3e-4", "--weight-decay", "0.1"},
                    kAdamW, 6, other),
            "");
  EXPECT_FALSE(checkResumedSchedule(s, other, false, "ck", warning, error));
  EXPECT_EQ(error, "--resume: 'ck' was saved with --weight-decay 0 but this "
                   "run has --weight-decay 0.1: give the flags the checkpoint "
                   "was saved with, or --override-schedule to continue with "
                   "this run's");
  ASSERT_EQ(resolve({"--lr", "0.001"}, kAdamW, 6, other), "");
  EXPECT_FALSE(checkResumedSchedule(s, other, false, "ck", warning, error));
  EXPECT_EQ(error, "--resume: 'ck' was saved with --decay cosine but this "
                   "run has --decay constant: give the flags the checkpoint "
                   "was saved with, or --override-schedule to continue with "
                   "this run's");
  EXPECT_TRUE(checkResumedSchedule(s, other, true, "ck", warning, error));
  EXPECT_EQ(warning, "warning: --override-schedule: continuing the schedule "
                     "of 'ck' with --decay constant (the checkpoint's: "
                     "cosine), --lr 0.001 (the checkpoint's: 0.003), --min-lr "
                     "0 (the checkpoint's: 0.0003), --warmup-steps 0 (the "
                     "checkpoint's: 4), --decay-steps 0 (the checkpoint's: "
                     "6)");
  // A damaged record names its field.
  nlohmann::json bad = scheduleToJson(s);
  bad["lr"] = "fast";
  EXPECT_FALSE(scheduleFromJson(bad, "'f': field 'schedule", back, error));
  EXPECT_EQ(error, "'f': field 'schedule.lr' must be a number, got \"fast\"");
  bad = scheduleToJson(s);
  bad["momentum"] = 0.9;
  EXPECT_FALSE(scheduleFromJson(bad, "'f': field 'schedule", back, error));
  EXPECT_EQ(error, "'f': field 'schedule' has an unknown field 'momentum'");
}

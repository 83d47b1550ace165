//===- LossScaleTest.cpp - the dynamic loss scaler and its flags ----------===//
//
// The scaler against hand-worked sequences (torch.cuda.amp.GradScaler's
// rule: back off on an overflow, grow after `window` finite steps in a row),
// its floor and ceiling, the static scale, its flags' errors, and the state
// a checkpoint records, read back and refused when malformed.
//
//===----------------------------------------------------------------------===//

#include "../driver/LossScale.h"
#include "../driver/Flags.h"
#include "../driver/Schedule.h"
#include "FlagsTestUtil.h"

#include <cfloat>
#include <gtest/gtest.h>

using namespace sprt;

namespace {
const std::vector<Hyperparameter> kFp16 = {
    {"grad_clip", 1.0}, {"loss_scale", 1.0}, {"lr", 0.1}};
const std::vector<Hyperparameter> kF32 = {{"grad_clip", 1.0}, {"lr", 0.1}};

LossScaler resolved(std::vector<std::string> args) {
  Flags f;
  std::string error;
  EXPECT_TRUE(parse(args, f, error)) << error;
  LossScaler s;
  EXPECT_TRUE(s.resolve(f.lossScale, kFp16, error)) << error;
  return s;
}
} // namespace

TEST(LossScale, DefaultsAreGradScalers) {
  LossScaler s = resolved({});
  EXPECT_TRUE(s.enabled());
  EXPECT_EQ(s.tableSlot(), 1);
  EXPECT_EQ(s.state.scale, 65536.0);
  EXPECT_EQ(s.window, 2000);
  EXPECT_EQ(s.growth, 2.0);
  EXPECT_EQ(s.backoff, 0.5);
  EXPECT_EQ(s.minScale, 1.0);
  // The schedule leaves the slot to the scaler (its table holds the
  // program's default there).
  Schedule schedule;
  std::string error;
  ASSERT_TRUE(resolveSchedule({}, kFp16, 10, schedule, error)) << error;
  EXPECT_EQ(schedule.table(kFp16, 0), std::vector<double>({1.0, 1.0, 0.1}));
}

TEST(LossScale, BacksOffGrowsAfterTheWindowAndStopsAtTheFloor) {
  LossScaler s = resolved({"--loss-scale", "8", "--loss-scale-window", "3",
                           "--min-loss-scale", "2"});
  // finite, overflow, 3 finite (grow), overflow x3 (floor 2), 3 finite.
  const bool finite[] = {true,  false, true, true, true, false,
                         false, false, true, true, true};
  const double scale[] = {8, 4, 4, 4, 8, 4, 2, 2, 2, 2, 4};
  const int64_t good[] = {1, 0, 1, 2, 0, 0, 0, 0, 1, 2, 0};
  const int64_t skipped[] = {0, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4};
  for (size_t i = 0; i < std::size(finite); ++i) {
    s.update(finite[i]);
    EXPECT_EQ(s.state.scale, scale[i]) << "after step " << i + 1;
    EXPECT_EQ(s.state.goodSteps, good[i]) << "after step " << i + 1;
    EXPECT_EQ(s.state.skipped, skipped[i]) << "after step " << i + 1;
  }
}

TEST(LossScale, GrowthAndBackoffFactors) {
  LossScaler s =
      resolved({"--loss-scale", "100", "--loss-scale-window", "1",
                "--loss-scale-growth", "3", "--loss-scale-backoff", "0.25"});
  s.update(true);
  EXPECT_EQ(s.state.scale, 300.0);
  s.update(false);
  EXPECT_EQ(s.state.scale, 75.0);
  // Never past the largest f32.
  s.state.scale = double(FLT_MAX) / 2;
  s.update(true);
  EXPECT_EQ(s.state.scale, double(FLT_MAX) / 2);
}

TEST(LossScale, WindowZeroIsStatic) {
  LossScaler s = resolved({"--loss-scale", "128", "--loss-scale-window", "0"});
  for (bool finite : {true, false, true, false, true})
    s.update(finite);
  EXPECT_EQ(s.state.scale, 128.0);
  EXPECT_EQ(s.state.skipped, 2);
}

TEST(LossScale, FlagsWithoutLossScalingAreErrors) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--loss-scale", "8"},
        {"--loss-scale-window", "10"},
        {"--loss-scale-growth", "4"},
        {"--loss-scale-backoff", "0.1"},
        {"--min-loss-scale", "2"}}) {
    Flags f;
    std::string error;
    ASSERT_TRUE(parse(args, f, error)) << error;
    LossScaler s;
    EXPECT_FALSE(s.resolve(f.lossScale, kF32, error)) << args[0];
    EXPECT_EQ(error, args[0] + ": this program has no loss scaling (compile "
                               "with --precision fp16)");
  }
  LossScaler s;
  std::string error;
  EXPECT_TRUE(s.resolve({}, kF32, error)) << error;
  EXPECT_FALSE(s.enabled());
  EXPECT_EQ(s.tableSlot(), -1);
}

TEST(LossScale, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--loss-scale", "0"},
       "--loss-scale must be a positive finite number, got '0'"},
      {{"--loss-scale", "inf"},
       "--loss-scale must be a positive finite number, got 'inf'"},
      {{"--loss-scale", "-8"},
       "--loss-scale must be a positive finite number, got '-8'"},
      {{"--min-loss-scale", "nan"},
       "--min-loss-scale must be a positive finite number, got 'nan'"},
      {{"--loss-scale-window", "-1"},
       "--loss-scale-window must be a non-negative integer (0: a static "
       "scale), got '-1'"},
      {{"--loss-scale-window", "2.5"},
       "--loss-scale-window must be a non-negative integer (0: a static "
       "scale), got '2.5'"},
      {{"--loss-scale-growth", "1"},
       "--loss-scale-growth must be a finite number > 1, got '1'"},
      {{"--loss-scale-backoff", "1"},
       "--loss-scale-backoff must be a number in (0, 1), got '1'"},
      {{"--loss-scale-backoff", "0"},
       "--loss-scale-backoff must be a number in (0, 1), got '0'"}};
  for (const auto &[args, message] : cases) {
    Flags f;
    std::string error;
    EXPECT_FALSE(parse(args, f, error)) << args[0] << " " << args[1];
    EXPECT_EQ(error, message);
  }
  // An initial scale below the floor.
  Flags f;
  std::string error;
  ASSERT_TRUE(parse({"--loss-scale", "0.5"}, f, error)) << error;
  LossScaler s;
  EXPECT_FALSE(s.resolve(f.lossScale, kFp16, error));
  EXPECT_EQ(error, "--loss-scale (0.5) must not be below --min-loss-scale "
                   "(1, the default)");
  Flags g;
  ASSERT_TRUE(parse({"--min-loss-scale", "1e6"}, g, error)) << error;
  EXPECT_FALSE(s.resolve(g.lossScale, kFp16, error));
  EXPECT_EQ(error, "--loss-scale (65536, the default) must not be below "
                   "--min-loss-scale (1e+06)");
  EXPECT_NE(usage("prog").find("[--loss-scale S] [--loss-scale-window N] "
                               "[--loss-scale-growth G] [--loss-scale-backoff "
                               "B] [--min-loss-scale M]"),
            std::string::npos);
}

TEST(LossScale, CheckpointRoundTrip) {
  LossScaleState saved{1024.0, 17, 3}, read;
  std::string error;
  nlohmann::json j = lossScaleToJson(saved);
  EXPECT_EQ(j.dump(), R"({"good_steps":17,"scale":1024.0,"skipped_steps":3})");
  ASSERT_TRUE(
      lossScaleFromJson(j, "'c.json': field 'loss_scale", 20, read, error))
      << error;
  EXPECT_EQ(read.scale, 1024.0);
  EXPECT_EQ(read.goodSteps, 17);
  EXPECT_EQ(read.skipped, 3);
  // A scaler continues from the state read back.
  LossScaler s = resolved({"--loss-scale-window", "18"});
  s.state = read;
  s.update(true);
  EXPECT_EQ(s.state.scale, 2048.0);

  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"([1])", "'c.json': field 'loss_scale' must be an object, got [1]"},
      {R"({"scale": 2, "good_steps": 0})",
       "'c.json': field 'loss_scale.skipped_steps' is missing"},
      {R"({"scale": 0, "good_steps": 0, "skipped_steps": 0})",
       "'c.json': field 'loss_scale.scale' must be a finite number > 0, got "
       "0"},
      {R"({"scale": "8", "good_steps": 0, "skipped_steps": 0})",
       "'c.json': field 'loss_scale.scale' must be a finite number > 0, got "
       "\"8\""},
      {R"({"scale": 8, "good_steps": -1, "skipped_steps": 0})",
       "'c.json': field 'loss_scale.good_steps' must be an integer in [0, "
       "20] (the checkpoint's step), got -1"},
      {R"({"scale": 8, "good_steps": 0, "skipped_steps": 21})",
       "'c.json': field 'loss_scale.skipped_steps' must be an integer in [0, "
       "20] (the checkpoint's step), got 21"},
      {R"({"scale": 8, "good_steps": 0, "skipped_steps": 0, "x": 1})",
       "'c.json': field 'loss_scale' has an unknown field 'x'"}};
  for (const auto &[text, message] : bad) {
    LossScaleState s;
    EXPECT_FALSE(lossScaleFromJson(nlohmann::json::parse(text),
                                   "'c.json': field 'loss_scale", 20, s, error))
        << text;
    EXPECT_EQ(error, message);
  }
}

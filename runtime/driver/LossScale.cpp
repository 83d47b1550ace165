//===- LossScale.cpp - dynamic loss scaling of fp16 training --------------===//

#include "LossScale.h"
#include "Schedule.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace sprt;
using nlohmann::json;

bool LossScaler::resolve(
    const LossScaleFlags &flags,
    const std::vector<std::pair<std::string, double>> &program,
    std::string &error) {
  slot = -1;
  for (size_t i = 0; i < program.size(); ++i)
    if (program[i].first == kLossScaleName)
      slot = int64_t(i);
  if (slot < 0) {
    if (const char *flag = flags.firstGiven()) {
      error = std::string(flag) +
              ": this program has no loss scaling (compile with --precision "
              "fp16)";
      return false;
    }
    return true;
  }
  initial = flags.scale.value_or(65536.0);
  growth = flags.growth.value_or(2.0);
  backoff = flags.backoff.value_or(0.5);
  minScale = flags.minScale.value_or(1.0);
  window = flags.window.value_or(2000);
  if (initial < minScale) {
    error = "--loss-scale (" + shortestText(initial) +
            (flags.scale ? "" : ", the default") +
            ") must not be below --min-loss-scale (" + shortestText(minScale) +
            (flags.minScale ? "" : ", the default") + ")";
    return false;
  }
  state = LossScaleState();
  state.scale = initial;
  return true;
}

void LossScaler::update(bool finiteNorm) {
  if (!finiteNorm) {
    ++state.skipped;
    state.goodSteps = 0;
    if (window > 0)
      state.scale = std::max(minScale, state.scale * backoff);
    return;
  }
  if (window == 0)
    return;
  if (++state.goodSteps < window)
    return;
  state.goodSteps = 0;
  // Not past the largest f32: the step computes with the scale in f32.
  if (state.scale * growth <= double(FLT_MAX))
    state.scale *= growth;
}

json sprt::lossScaleToJson(const LossScaleState &s) {
  return {{"scale", s.scale},
          {"good_steps", s.goodSteps},
          {"skipped_steps", s.skipped}};
}

bool sprt::lossScaleFromJson(const json &j, const std::string &where,
                             int64_t step, LossScaleState &s,
                             std::string &error) {
  if (!j.is_object()) {
    error = where + "' must be an object, got " + j.dump();
    return false;
  }
  for (const char *key : {"scale", "good_steps", "skipped_steps"})
    if (!j.contains(key)) {
      error = where + "." + key + "' is missing";
      return false;
    }
  for (const auto &[key, value] : j.items()) {
    auto bad = [&](const std::string &what) {
      error = where + "." + key + "' must be " + what + ", got " + value.dump();
      return false;
    };
    if (key == "scale") {
      if (!value.is_number() || !(value.get<double>() > 0.0) ||
          !std::isfinite(value.get<double>()))
        return bad("a finite number > 0");
      s.scale = value.get<double>();
    } else if (key == "good_steps" || key == "skipped_steps") {
      if (!value.is_number_integer() ||
          (value.is_number_unsigned()
               ? value.get<uint64_t>() > uint64_t(step)
               : value.get<int64_t>() < 0 || value.get<int64_t>() > step))
        return bad("an integer in [0, " + std::to_string(step) +
                   "] (the checkpoint's step)");
      (key == "good_steps" ? s.goodSteps : s.skipped) = value.get<int64_t>();
    } else {
      error = where + "' has an unknown field '" + key + "'";
      return false;
    }
  }
  return true;
}

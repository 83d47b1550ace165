//===- Schedule.cpp - run-time hyperparameters and the lr schedule --------===//

#include "Schedule.h"
#include "LossScale.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

using namespace sprt;
using nlohmann::json;

namespace {
constexpr double kPi = 3.14159265358979323846;

/// A hyperparameter's flag and its name in the model description.
struct Named {
  const char *flag, *name;
};
/// The hyperparameters a program may read (tfm.hyperparameter's kinds).
constexpr Named kHyperparameters[] = {{"--lr", "lr"},
                                      {"--beta1", "beta1"},
                                      {"--beta2", "beta2"},
                                      {"--adam-eps", "eps"},
                                      {"--weight-decay", "weight_decay"},
                                      {"--grad-clip", "grad_clip"}};
/// The schedule's own fields (checkpoint keys).
constexpr Named kScheduleFields[] = {{"--decay", "decay"},
                                     {"--lr", "lr"},
                                     {"--min-lr", "min_lr"},
                                     {"--warmup-steps", "warmup_steps"},
                                     {"--decay-steps", "decay_steps"}};

const char *flagOf(const std::string &name) {
  for (const Named &n : kHyperparameters)
    if (name == n.name)
      return n.flag;
  for (const Named &n : kScheduleFields)
    if (name == n.name)
      return n.flag;
  return nullptr;
}

const char *decayName(Decay d) {
  switch (d) {
  case Decay::Constant:
    return "constant";
  case Decay::Linear:
    return "linear";
  case Decay::Cosine:
    return "cosine";
  }
  return "constant";
}

std::optional<Decay> decayNamed(const std::string &s) {
  for (Decay d : {Decay::Constant, Decay::Linear, Decay::Cosine})
    if (s == decayName(d))
      return d;
  return std::nullopt;
}

/// A finite decimal number and nothing else.
bool parseNumber(const char *s, double &out) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

/// A decimal integer in [lo, INT64_MAX] (no sign, no trailing characters).
bool parseCount(const char *s, int64_t lo, int64_t &out) {
  if (*s < '0' || *s > '9')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (*end || errno == ERANGE || v > uint64_t(INT64_MAX) || int64_t(v) < lo)
    return false;
  out = int64_t(v);
  return true;
}
} // namespace

std::string sprt::shortestText(double x) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x)
      break;
  }
  return buf;
}

bool sprt::isScheduleFlag(const std::string &flag) {
  for (const Named &n : kHyperparameters)
    if (flag == n.flag)
      return true;
  for (const Named &n : kScheduleFields)
    if (flag == n.flag)
      return true;
  return false;
}

bool sprt::parseScheduleFlag(const std::string &flag, const char *value,
                             ScheduleFlags &f, std::string &error) {
  auto bad = [&](const std::string &what) {
    error = flag + " must be " + what + ", got '" + value + "'";
    return false;
  };
  double x = 0.0;
  int64_t n = 0;
  bool number = parseNumber(value, x);
  if (flag == "--decay") {
    std::optional<Decay> d = decayNamed(value);
    if (!d)
      return bad("'cosine', 'linear' or 'constant'");
    f.decay = d;
  } else if (flag == "--warmup-steps") {
    if (!parseCount(value, 0, n))
      return bad("a non-negative integer");
    f.warmupSteps = n;
  } else if (flag == "--decay-steps") {
    if (!parseCount(value, 1, n))
      return bad("a positive integer");
    f.decaySteps = n;
  } else if (flag == "--lr" || flag == "--adam-eps") {
    if (!number || !(x > 0.0))
      return bad("a number > 0");
    (flag == "--lr" ? f.lr : f.eps) = x;
  } else if (flag == "--beta1" || flag == "--beta2") {
    if (!number || !(x >= 0.0 && x < 1.0))
      return bad("a number in [0, 1)");
    (flag == "--beta1" ? f.beta1 : f.beta2) = x;
  } else {
    if (!number || !(x >= 0.0))
      return bad(flag == "--grad-clip" ? "a number >= 0 (0: off)"
                                       : "a number >= 0");
    (flag == "--min-lr"         ? f.minLr
     : flag == "--weight-decay" ? f.weightDecay
                                : f.gradClip) = x;
  }
  return true;
}

std::string sprt::scheduleUsage() {
  return "[--lr LR] [--min-lr LR] [--warmup-steps N] "
         "[--decay cosine|linear|constant] [--decay-steps N] [--beta1 B] "
         "[--beta2 B] [--adam-eps E] [--weight-decay W] [--grad-clip C] "
         "[--override-schedule]";
}

double Schedule::lrAt(int64_t completed) const {
  // Megatron-LM's OptimizerParamScheduler.get_lr at num_steps = completed.
  if (warmupSteps > 0 && completed <= warmupSteps)
    return lr * double(completed) / double(warmupSteps);
  if (decay == Decay::Constant)
    return lr;
  if (completed > decaySteps)
    return minLr;
  double t = double(completed - warmupSteps) / double(decaySteps - warmupSteps);
  double coeff =
      decay == Decay::Cosine ? 0.5 * (std::cos(kPi * t) + 1.0) : 1.0 - t;
  return minLr + coeff * (lr - minLr);
}

std::vector<double> Schedule::table(const std::vector<Hyperparameter> &program,
                                    int64_t completed) const {
  std::vector<double> values;
  for (const auto &[name, value] : program) {
    double v = value;
    if (name == "lr")
      v = lrAt(completed);
    for (const auto &[fixedName, fixedValue] : fixed)
      if (fixedName == name)
        v = fixedValue;
    values.push_back(v);
  }
  return values;
}

bool sprt::resolveSchedule(const ScheduleFlags &f,
                           const std::vector<Hyperparameter> &program,
                           int64_t steps, Schedule &s, std::string &error) {
  s = Schedule();
  std::string names;
  for (const auto &[name, value] : program) {
    // The loss scale is the loss scaler's (LossScale.h), not the schedule's.
    if (name == kLossScaleName)
      continue;
    if (!flagOf(name)) {
      error = "the program reads hyperparameter '" + name +
              "', which this runtime does not set";
      return false;
    }
    names += (names.empty() ? "" : ", ") + name;
  }
  auto reads = [&](const char *name) -> const double * {
    for (const auto &[n, value] : program)
      if (n == name)
        return &value;
    return nullptr;
  };
  auto unused = [&](const std::string &flag, const char *name) {
    error = program.empty()
                ? flag + " needs a training program (sp-compile --train)"
                : flag + ": this program does not read " + name +
                      " (its optimizer's hyperparameters: " + names + ")";
    return false;
  };
  const std::optional<double> *given[] = {&f.lr,  &f.beta1,       &f.beta2,
                                          &f.eps, &f.weightDecay, &f.gradClip};
  for (size_t i = 0; i < std::size(kHyperparameters); ++i) {
    const double *dflt = reads(kHyperparameters[i].name);
    if (given[i]->has_value() && !dflt)
      return unused(kHyperparameters[i].flag, kHyperparameters[i].name);
    if (!dflt)
      continue;
    double v = given[i]->value_or(*dflt);
    if (std::string(kHyperparameters[i].name) == "lr") {
      s.hasLr = true;
      s.lr = v;
    } else {
      s.fixed.push_back({kHyperparameters[i].name, v});
    }
  }
  // The schedule's own flags shape the learning rate.
  if (!s.hasLr) {
    if (f.minLr || f.warmupSteps || f.decay || f.decaySteps)
      return unused(f.minLr         ? "--min-lr"
                    : f.warmupSteps ? "--warmup-steps"
                    : f.decay       ? "--decay"
                                    : "--decay-steps",
                    "lr");
    return true;
  }
  s.decay = f.decay.value_or(Decay::Constant);
  s.warmupSteps = f.warmupSteps.value_or(0);
  if (s.decay == Decay::Constant) {
    if (f.minLr || f.decaySteps) {
      error = std::string(f.minLr ? "--min-lr" : "--decay-steps") +
              " needs --decay cosine or linear (after its warm-up a constant "
              "schedule keeps --lr)";
      return false;
    }
    return true;
  }
  s.minLr = f.minLr.value_or(0.0);
  s.decaySteps = f.decaySteps.value_or(steps);
  if (s.minLr > s.lr) {
    error = "--min-lr (" + shortestText(s.minLr) + ") must not exceed --lr (" +
            shortestText(s.lr) + ")";
    return false;
  }
  if (s.warmupSteps >= s.decaySteps) {
    error = "--warmup-steps (" + std::to_string(s.warmupSteps) +
            ") must be less than --decay-steps (" +
            std::to_string(s.decaySteps) +
            (f.decaySteps ? ")" : ", from --steps)");
    return false;
  }
  return true;
}

json sprt::scheduleToJson(const Schedule &s) {
  json j = json::object();
  if (!s.hasLr)
    return j;
  j["decay"] = decayName(s.decay);
  j["lr"] = s.lr;
  j["min_lr"] = s.minLr;
  j["warmup_steps"] = s.warmupSteps;
  j["decay_steps"] = s.decaySteps;
  for (const auto &[name, value] : s.fixed)
    j[name] = value;
  return j;
}

bool sprt::scheduleFromJson(const json &j, const std::string &where,
                            Schedule &s, std::string &error) {
  s = Schedule();
  if (!j.is_object()) {
    error = where + "' must be an object, got " + j.dump();
    return false;
  }
  for (const auto &[key, value] : j.items()) {
    auto bad = [&](const char *what) {
      error = where + "." + key + "' must be " + what + ", got " + value.dump();
      return false;
    };
    if (!flagOf(key)) {
      error = where + "' has an unknown field '" + key + "'";
      return false;
    }
    if (key == "decay") {
      std::optional<Decay> d = value.is_string()
                                   ? decayNamed(value.get<std::string>())
                                   : std::nullopt;
      if (!d)
        return bad("'cosine', 'linear' or 'constant'");
      s.decay = *d;
    } else if (key == "warmup_steps" || key == "decay_steps") {
      if (!value.is_number_integer() ||
          (value.is_number_unsigned() ? value.get<uint64_t>() > INT64_MAX
                                      : value.get<int64_t>() < 0))
        return bad("a non-negative integer");
      (key == "warmup_steps" ? s.warmupSteps : s.decaySteps) =
          value.get<int64_t>();
    } else if (!value.is_number()) {
      return bad("a number");
    } else if (key == "lr") {
      s.lr = value.get<double>();
      s.hasLr = true;
    } else if (key == "min_lr") {
      s.minLr = value.get<double>();
    } else {
      s.fixed.push_back({key, value.get<double>()});
    }
  }
  if (!j.empty() && !s.hasLr) {
    error = where + ".lr' is missing";
    return false;
  }
  return true;
}

bool sprt::checkResumedSchedule(const Schedule &saved, const Schedule &now,
                                bool override, const std::string &checkpoint,
                                std::string &warning, std::string &error) {
  json a = scheduleToJson(saved), b = scheduleToJson(now);
  auto text = [](const json &v) {
    if (v.is_null())
      return std::string("(none)");
    if (v.is_string())
      return v.get<std::string>();
    if (v.is_number_float())
      return shortestText(v.get<double>());
    return v.dump();
  };
  // The schedule's fields first, then the other hyperparameters.
  std::vector<std::string> keys;
  for (const Named &n : kScheduleFields)
    keys.push_back(n.name);
  for (const json *j : {&a, &b})
    for (const auto &[key, value] : j->items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        keys.push_back(key);
  std::string differences;
  for (const std::string &key : keys) {
    json x = a.value(key, json()), y = b.value(key, json());
    if (x == y)
      continue;
    std::string flag = flagOf(key);
    if (!override) {
      error = "--resume: '" + checkpoint + "' was saved with " + flag + " " +
              text(x) + " but this run has " + flag + " " + text(y) +
              ": give the flags the checkpoint was saved with, or "
              "--override-schedule to continue with this run's";
      return false;
    }
    differences += (differences.empty() ? "" : ", ") + flag + " " + text(y) +
                   " (the checkpoint's: " + text(x) + ")";
  }
  if (!differences.empty())
    warning = "warning: --override-schedule: continuing the schedule of '" +
              checkpoint + "' with " + differences;
  return true;
}

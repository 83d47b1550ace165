//===- Flags.cpp - the flags of a compiled program ------------------------===//

#include "Flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

using namespace sprt;

/// A decimal integer in [lo, hi] and nothing else (no sign for unsigned
/// flags, no spaces, no trailing characters, no silent clamping).
static bool parseUnsigned(const char *s, uint64_t lo, uint64_t hi,
                          uint64_t &out) {
  if (*s < '0' || *s > '9')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (*end || errno == ERANGE || v < lo || v > hi)
    return false;
  out = v;
  return true;
}

static bool parseSeconds(const char *s, double &out) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !std::isfinite(v) || v <= 0.0)
    return false;
  out = v;
  return true;
}

std::string sprt::usage(const char *argv0) {
  return std::string("usage: mpirun -np N ") + argv0 +
         " [--steps K] [--seed S] [--data FILE [--pack-documents]] "
         "[--init-from FILE [--init-from-partial]] "
         "[--log FILE] [--dump-params FILE] [--dump-outputs FILE] "
         "[--dump-grads FILE] [--dump-dtype f32|bf16|f16] [--export-hf DIR "
         "[--export-shard-bytes N]] [--checkpoint-dir "
         "DIR [--save-every N] [--resume | --overwrite-checkpoints]] "
         "[--timeout SECONDS] [--wait yield|spin] "
         "[--comm nccl|mpi|mpi-staged] [--cuda-graph=true|false] "
         "[--on-nonfinite stop|skip] [--check-tied] " +
         scheduleUsage() +
         " [--trace FILE|DIR] [--peak-flops FLOP/s-per-rank] [--loss-scale S] "
         "[--loss-scale-window N] [--loss-scale-growth G] "
         "[--loss-scale-backoff B] [--min-loss-scale M] [--shuffle] "
         "[--data-seed S] [--epochs E] [--valid-data FILE [--eval-every N] "
         "[--eval-steps K]]\n";
}

/// A positive finite decimal number ("989e12", "1.5e14"): digits, one point
/// and an exponent only (no inf, nan or hexadecimal).
static bool parsePositive(const char *s, double &out) {
  bool digits = false, point = false, exponent = false;
  for (const char *c = s; *c; ++c) {
    if (*c >= '0' && *c <= '9')
      digits = true;
    else if (*c == '.' && !point && !exponent)
      point = true;
    else if ((*c == 'e' || *c == 'E') && digits && !exponent) {
      exponent = true;
      if (c[1] == '+' || c[1] == '-')
        ++c;
      if (c[1] < '0' || c[1] > '9')
        return false;
    } else
      return false;
  }
  if (!digits)
    return false;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (*end || errno == ERANGE || !std::isfinite(v) || !(v > 0))
    return false;
  out = v;
  return true;
}

bool sprt::parseFlags(int argc, char **argv, Flags &f, bool &help,
                      std::string &error) {
  static const std::set<std::string> valueFlags = {"--steps",
                                                   "--seed",
                                                   "--data",
                                                   "--init-from",
                                                   "--log",
                                                   "--dump-params",
                                                   "--dump-outputs",
                                                   "--dump-grads",
                                                   "--export-hf",
                                                   "--export-shard-bytes",
                                                   "--timeout",
                                                   "--wait",
                                                   "--comm",
                                                   "--save-every",
                                                   "--checkpoint-dir",
                                                   "--on-nonfinite",
                                                   "--dump-dtype",
                                                   "--trace",
                                                   "--peak-flops",
                                                   "--loss-scale",
                                                   "--loss-scale-window",
                                                   "--loss-scale-growth",
                                                   "--loss-scale-backoff",
                                                   "--min-loss-scale",
                                                   "--data-seed",
                                                   "--epochs",
                                                   "--valid-data",
                                                   "--eval-every",
                                                   "--eval-steps"};
  // The flags that take a file or directory: an empty value is an error,
  // never "none".
  static const std::set<std::string> fileFlags = {
      "--data",         "--init-from",  "--log",       "--dump-params",
      "--dump-outputs", "--dump-grads", "--valid-data"};
  static const std::set<std::string> switches = {
      "--resume",           "--overwrite-checkpoints", "--pack-documents",
      "--check-tied",       "--init-from-partial",     "--shuffle",
      "--override-schedule"};
  help = false;
  // Each flag once: a second value would silently replace the first.
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      help = true;
      return true;
    }
    // --cuda-graph=true|false, one token.
    if (a.rfind("--cuda-graph", 0) == 0) {
      if (a != "--cuda-graph=true" && a != "--cuda-graph=false") {
        error = "--cuda-graph takes =true or =false, got '" + a + "'";
        return false;
      }
      if (!seen.insert("--cuda-graph").second) {
        error = "flag --cuda-graph is given more than once (give each flag "
                "once)";
        return false;
      }
      f.cudaGraph = a == "--cuda-graph=true";
      continue;
    }
    if (!switches.count(a) && !valueFlags.count(a) && !isScheduleFlag(a)) {
      error = "unknown flag '" + a + "' (see --help)";
      return false;
    }
    if (!seen.insert(a).second) {
      error = "flag " + a + " is given more than once (give each flag once)";
      return false;
    }
    if (a == "--resume") {
      f.resume = true;
      continue;
    }
    if (a == "--pack-documents") {
      f.packDocuments = true;
      continue;
    }
    if (a == "--check-tied") {
      f.checkTied = true;
      continue;
    }
    if (a == "--init-from-partial") {
      f.initFromPartial = true;
      continue;
    }
    if (a == "--shuffle") {
      f.shuffle = true;
      continue;
    }
    if (a == "--override-schedule") {
      f.schedule.overrideSchedule = true;
      continue;
    }
    if (a == "--overwrite-checkpoints") {
      f.overwriteCheckpoints = true;
      continue;
    }
    if (i + 1 >= argc) {
      error = "flag " + a + " needs a value";
      return false;
    }
    const char *v = argv[++i];
    if (!*v && (fileFlags.count(a) || a == "--checkpoint-dir")) {
      error = a + " needs a " +
              (a == "--checkpoint-dir" ? "directory" : "file") + ", got ''";
      return false;
    }
    auto bad = [&](const std::string &what) {
      error = a + " must be " + what + ", got '" + v + "'";
      return false;
    };
    uint64_t n;
    if (a == "--steps") {
      if (!parseUnsigned(v, 1, INT64_MAX, n))
        return bad("a positive integer");
      f.steps = int64_t(n);
      f.hasSteps = true;
    } else if (a == "--epochs") {
      if (!parseUnsigned(v, 1, INT64_MAX / (int64_t(1) << 32), n))
        return bad("a positive integer");
      f.epochs = int64_t(n);
    } else if (a == "--seed") {
      if (!parseUnsigned(v, 0, UINT64_MAX, n))
        return bad("a non-negative integer");
      f.seed = n;
      f.hasSeed = true;
    } else if (a == "--data-seed") {
      if (!parseUnsigned(v, 0, UINT64_MAX, n))
        return bad("a non-negative integer");
      f.dataSeed = n;
      f.hasDataSeed = true;
    } else if (a == "--eval-every" || a == "--eval-steps") {
      if (!parseUnsigned(v, 1, INT64_MAX, n))
        return bad("a positive integer");
      (a == "--eval-every" ? f.evalEvery : f.evalSteps) = int64_t(n);
    } else if (a == "--valid-data") {
      f.validData = v;
    } else if (a == "--save-every") {
      if (!parseUnsigned(v, 1, INT64_MAX, n))
        return bad("a positive integer");
      f.saveEvery = int64_t(n);
    } else if (a == "--timeout") {
      if (!parseSeconds(v, f.timeout))
        return bad("a positive number of seconds");
    } else if (a == "--wait") {
      std::string how = v;
      if (how != "yield" && how != "spin")
        return bad("'yield' or 'spin'");
      f.spinWait = how == "spin";
    } else if (a == "--comm") {
      std::string kind = v;
      if (kind != "nccl" && kind != "mpi" && kind != "mpi-staged")
        return bad("'nccl', 'mpi' or 'mpi-staged'");
      f.comm = kind;
    } else if (a == "--on-nonfinite") {
      if (std::string(v) != "stop" && std::string(v) != "skip")
        return bad("'stop' or 'skip'");
      f.skipNonFinite = std::string(v) == "skip";
    } else if (a == "--dump-dtype") {
      if (std::string(v) != "f32" && std::string(v) != "bf16" &&
          std::string(v) != "f16")
        return bad("'f32', 'bf16' or 'f16'");
      f.dumpDtype = v;
    } else if (isScheduleFlag(a)) {
      if (!parseScheduleFlag(a, v, f.schedule, error))
        return false;
    } else if (a == "--trace") {
      if (!*v) {
        error = "--trace needs a file or directory, got ''";
        return false;
      }
      f.trace = v;
    } else if (a == "--peak-flops") {
      if (!parsePositive(v, f.peakFlops))
        return bad("one rank's peak FLOP/s, a positive finite number such "
                   "as 989e12");
    } else if (a == "--loss-scale" || a == "--min-loss-scale") {
      double x;
      if (!parsePositive(v, x))
        return bad("a positive finite number");
      (a == "--loss-scale" ? f.lossScale.scale : f.lossScale.minScale) = x;
    } else if (a == "--loss-scale-window") {
      if (!parseUnsigned(v, 0, INT64_MAX, n))
        return bad("a non-negative integer (0: a static scale)");
      f.lossScale.window = int64_t(n);
    } else if (a == "--loss-scale-growth") {
      double x;
      if (!parsePositive(v, x) || !(x > 1.0))
        return bad("a finite number > 1");
      f.lossScale.growth = x;
    } else if (a == "--loss-scale-backoff") {
      double x;
      if (!parsePositive(v, x) || !(x < 1.0))
        return bad("a number in (0, 1)");
      f.lossScale.backoff = x;
    } else if (a == "--data") {
      f.data = v;
    } else if (a == "--init-from") {
      f.initFrom = v;
    } else if (a == "--log") {
      f.log = v;
    } else if (a == "--dump-params") {
      f.dumpParams = v;
    } else if (a == "--dump-outputs") {
      f.dumpOutputs = v;
    } else if (a == "--dump-grads") {
      f.dumpGrads = v;
    } else if (a == "--export-hf") {
      if (!*v) {
        error = "--export-hf needs a directory, got ''";
        return false;
      }
      f.exportHf = v;
    } else if (a == "--export-shard-bytes") {
      if (!parseUnsigned(v, 1, INT64_MAX, n))
        return bad("a positive number of bytes");
      f.exportShardBytes = int64_t(n);
    } else {
      f.checkpointDir = v;
    }
  }
  if (f.packDocuments && f.data.empty()) {
    error = "--pack-documents needs --data (a text whose paragraphs, ended by "
            "a blank line, are the documents)";
    return false;
  }
  if (f.shuffle && f.data.empty()) {
    error = "--shuffle needs --data";
    return false;
  }
  if (f.shuffle && f.packDocuments) {
    error = "--shuffle and --pack-documents conflict: packed documents are "
            "read in order (a document continues in the next sequence)";
    return false;
  }
  if (f.epochs && f.hasSteps) {
    error = "--epochs and --steps conflict: give one";
    return false;
  }
  if (f.epochs && f.data.empty()) {
    error = "--epochs needs --data";
    return false;
  }
  if (f.hasDataSeed && f.data.empty()) {
    error = "--data-seed needs --data";
    return false;
  }
  if (!f.validData.empty() && f.data.empty()) {
    error = "--valid-data needs --data";
    return false;
  }
  if (f.validData.empty() && (f.evalEvery || f.evalSteps)) {
    error = "--eval-every and --eval-steps need --valid-data";
    return false;
  }
  if (!f.evalSteps)
    f.evalSteps = 1;
  if ((f.saveEvery || f.resume) && f.checkpointDir.empty()) {
    error = "--save-every and --resume need --checkpoint-dir";
    return false;
  }
  if (f.overwriteCheckpoints && f.checkpointDir.empty()) {
    error = "--overwrite-checkpoints needs --checkpoint-dir";
    return false;
  }
  if (f.overwriteCheckpoints && f.resume) {
    error = "--overwrite-checkpoints and --resume conflict: --resume "
            "continues the checkpoints in --checkpoint-dir, "
            "--overwrite-checkpoints writes a new run's over them";
    return false;
  }
  // A resumed run goes on exactly as the one that saved: with its seed and
  // its sample order.
  if (f.resume && f.hasSeed) {
    error = "--seed and --resume conflict: a resumed run goes on with the "
            "seed its checkpoint recorded";
    return false;
  }
  if (f.resume && f.hasDataSeed) {
    error = "--data-seed and --resume conflict: a resumed run goes on with "
            "the sample order its checkpoint recorded";
    return false;
  }
  if (!f.dumpDtype.empty() && f.dumpParams.empty() && f.dumpGrads.empty()) {
    error = "--dump-dtype needs --dump-params or --dump-grads";
    return false;
  }
  if (f.exportShardBytes && f.exportHf.empty()) {
    error = "--export-shard-bytes needs --export-hf";
    return false;
  }
  if (f.schedule.overrideSchedule && !f.resume) {
    error = "--override-schedule needs --resume";
    return false;
  }
  if (f.initFromPartial && f.initFrom.empty()) {
    error = "--init-from-partial needs --init-from";
    return false;
  }
  if (f.resume && !f.initFrom.empty()) {
    error = "--init-from and --resume conflict: a resumed run takes its "
            "parameters from the checkpoint";
    return false;
  }
  return true;
}

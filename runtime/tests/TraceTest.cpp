//===- TraceTest.cpp - --trace, --peak-flops and throughput ---------------===//
//
// The trace recorder against what the test did (spans, nesting, counter
// samples of the allocator's live bytes), the trace file's name and atomic
// write, the flags' parsing, and the throughput figures against their
// definitions.
//
//===----------------------------------------------------------------------===//

#include "../core/Trace.h"
#include "../core/Memory.h"
#include "../driver/Flags.h"
#include "../driver/Observability.h"

#include "sprt/runtime.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sprt;

namespace {
std::string tempDir() {
  char templ[] = "/tmp/sprt-trace-XXXXXX";
  return mkdtemp(templ);
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// parseFlags on `args` into `flags`.
bool take(std::vector<std::string> args, Flags &flags, std::string &error) {
  std::vector<char *> argv{const_cast<char *>("prog")};
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  flags = Flags();
  bool help = false;
  bool ok = parseFlags(int(argv.size()) - 1, argv.data(), flags, help, error);
  return ok;
}
} // namespace

TEST(Trace, FileNames) {
  EXPECT_EQ(traceFile("trace.json", 0), "trace.rank0.json");
  EXPECT_EQ(traceFile("out/run.trace.json", 3), "out/run.trace.rank3.json");
  EXPECT_EQ(traceFile("out/trace", 1), "out/trace.rank1.json");
  EXPECT_EQ(traceFile("a.b/trace", 1), "a.b/trace.rank1.json");
  EXPECT_EQ(traceFile(".trace", 2), ".trace.rank2.json");
  EXPECT_EQ(traceFile("new/", 1), "new/trace.rank1.json");
  std::string dir = tempDir();
  EXPECT_EQ(traceFile(dir, 7), dir + "/trace.rank7.json");
  EXPECT_EQ(traceFileProblem(dir + "/t.json"), "");
  EXPECT_EQ(traceFileProblem(dir + "/missing/t.json"),
            "cannot write the trace '" + dir + "/missing/t.json': '" + dir +
                "/missing' is not a directory");
  EXPECT_EQ(traceFileProblem(dir),
            "cannot write the trace '" + dir + "': it is a directory");
  EXPECT_EQ(traceFileProblem("t.json"), "");
}

TEST(Trace, Flags) {
  Flags f;
  std::string error;
  ASSERT_TRUE(take({"--steps", "3", "--trace", "t.json", "--log", "m",
                    "--peak-flops", "989e12"},
                   f, error))
      << error;
  EXPECT_EQ(f.trace, "t.json");
  EXPECT_EQ(f.peakFlops, 989e12);
  EXPECT_EQ(f.steps, 3);
  EXPECT_EQ(f.log, "m");
  for (const char *good : {"1.5E+14", ".5", "312e12", "7"}) {
    EXPECT_TRUE(take({"--peak-flops", good}, f, error)) << good;
    EXPECT_EQ(f.peakFlops, std::strtod(good, nullptr)) << good;
  }
  for (const char *bad : {"0", "-5", "inf", "nan", "0x10", "1e", "1e999", "abc",
                          "", "1.2.3", "5 "}) {
    EXPECT_FALSE(take({"--peak-flops", bad}, f, error)) << bad;
    EXPECT_EQ(error, "--peak-flops must be one rank's peak FLOP/s, a "
                     "positive finite number such as 989e12, got '" +
                         std::string(bad) + "'");
  }
  EXPECT_FALSE(take({"--trace"}, f, error));
  EXPECT_EQ(error, "flag --trace needs a value");
  EXPECT_FALSE(take({"--trace", ""}, f, error));
}

TEST(Trace, Throughput) {
  Model m;
  m.batch = 4;
  m.seq = 8;
  m.flopsPerStep = 1000000000;
  m.recomputeFlopsPerStep = 200000000;
  Throughput t = throughput(m, 0.5, 0);
  EXPECT_DOUBLE_EQ(t.tokensPerSecond, 4 * 8 / 0.5);
  EXPECT_DOUBLE_EQ(t.flopsPerSecond, 1e9 / 0.5);
  EXPECT_LT(t.mfu, 0);
  EXPECT_EQ(throughputText(t), "64 tok/s, 2GFLOP/s/rank");
  EXPECT_EQ(throughputJson(t),
            ", \"tokens_per_s\": 64, \"flops_per_s\": 2e+09");
  t = throughput(m, 0.5, 4e10);
  // MFU counts the model's FLOPs (recompute excluded), HFU all.
  EXPECT_DOUBLE_EQ(t.mfu, 0.8e9 / 0.5 / 4e10);
  EXPECT_DOUBLE_EQ(t.hfu, 1e9 / 0.5 / 4e10);
  EXPECT_EQ(throughputText(t), "64 tok/s, 2GFLOP/s/rank, MFU 4.00%");
  EXPECT_EQ(throughputJson(t), ", \"tokens_per_s\": 64, \"flops_per_s\": "
                               "2e+09, \"mfu\": 0.04, \"hfu\": 0.05");
  EXPECT_EQ(throughput(m, 0, 4e10).tokensPerSecond, 0);
  // A step of 3 micro-batches of the batch: 3 x batch x seq tokens.
  m.microBatches = 3;
  EXPECT_DOUBLE_EQ(throughput(m, 0.5, 0).tokensPerSecond, 3 * 4 * 8 / 0.5);
}

// Records a trace (the process's tracer: once per process) and checks the
// events against what happened.
TEST(Trace, Recording) {
  EXPECT_FALSE(tracing());
  // Off: nothing is recorded.
  sprt_trace_begin("tfm.ignored", "");
  sprt_trace_end();
  startTrace(3);
  ASSERT_TRUE(tracing());
  auto t0 = std::chrono::steady_clock::now();
  void *a = allocate(1000, MemoryCategory::Arena);
  sprt_trace_begin("tfm.linear", "h.0.\"mlp\"");
  {
    TraceSpan inner("all_gather", -1);
    void *b = allocate(24, MemoryCategory::Scratch);
    release(b);
  }
  sprt_trace_end();
  auto t1 = std::chrono::steady_clock::now();
  traceStep(7, t0, t1);
  release(a);

  nlohmann::json j = nlohmann::json::parse(traceJson());
  std::vector<nlohmann::json> spans, counters;
  for (const auto &e : j.at("traceEvents")) {
    EXPECT_EQ(e.at("pid"), 3);
    EXPECT_EQ(e.at("tid"), 0);
    if (e.at("ph") == "X")
      spans.push_back(e);
    else if (e.at("ph") == "C")
      counters.push_back(e);
    else
      EXPECT_EQ(e.at("ph"), "M");
  }
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].at("name"), "step 7");
  EXPECT_EQ(spans[0].at("args").at("step"), 7);
  EXPECT_EQ(spans[1].at("name"), "tfm.linear");
  EXPECT_EQ(spans[1].at("cat"), "op");
  EXPECT_EQ(spans[1].at("args").at("where"), "h.0.\"mlp\"");
  EXPECT_EQ(spans[2].at("name"), "all_gather");
  EXPECT_EQ(spans[2].at("cat"), "collective");
  EXPECT_TRUE(spans[2].at("args").at("axis").is_null());
  EXPECT_EQ(spans[2].at("args").at("bytes"), 0);
  auto end = [](const nlohmann::json &e) {
    return e.at("ts").get<double>() + e.at("dur").get<double>();
  };
  // Each holds the next (times in microseconds, 1 ns resolution).
  for (int i = 0; i < 2; ++i) {
    EXPECT_LE(spans[i].at("ts").get<double>(),
              spans[i + 1].at("ts").get<double>());
    EXPECT_GE(end(spans[i]) + 1e-3, end(spans[i + 1]));
  }
  double stepMicros =
      std::chrono::duration<double, std::micro>(t1 - t0).count();
  EXPECT_NEAR(spans[0].at("dur").get<double>(), stepMicros, 2e-3);
  // One sample per change of the live bytes: +1000, +24, -24, -1000.
  std::vector<int64_t> live;
  for (const auto &c : counters)
    live.push_back(c.at("args").at("live_bytes").get<int64_t>());
  EXPECT_EQ(live, (std::vector<int64_t>{1000, 1024, 1000, 0}));
}

// A trace that cannot be written completely leaves no file behind.
TEST(Trace, AtomicWrite) {
  std::string dir = tempDir();
  std::string error;
  ASSERT_TRUE(writeTrace(dir + "/ok.json", error)) << error;
  std::ifstream in(dir + "/ok.json");
  EXPECT_TRUE(nlohmann::json::accept(
      std::string(std::istreambuf_iterator<char>(in), {})));
  std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit old, small = {16, 16};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool ok = writeTrace(dir + "/big.json", error);
  setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("big.json"), std::string::npos) << error;
  EXPECT_FALSE(exists(dir + "/big.json"));
  EXPECT_FALSE(exists(dir + "/big.json.tmp"));
}

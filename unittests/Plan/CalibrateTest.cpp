//===- CalibrateTest.cpp - sp-plan --calibrate's fit ----------------------===//
//
// fitCalibration on figures made from known rates: it must give those rates
// back (the median GEMM over the fastest, attention by the compiler's FLOP
// count, each memory-bound kernel over the copy, the link's latency and
// bandwidth exactly from exact times, ring attention with the link's time
// for its bytes taken off), and a device's figures: precisions each over
// their own peak (given, else the fastest measured), one rank with no link,
// the device's memory.
//
//===----------------------------------------------------------------------===//

#include "sp-plan/Calibrate.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace seqpar::plan;

static const char *measured = R"({
  "ranks": 2,
  "gemm": [{"op": "linear", "m": 100, "k": 100, "n": 100, "seconds": 2e-6},
           {"op": "linear", "m": 100, "k": 100, "n": 100, "seconds": 4e-6},
           {"op": "linear", "m": 100, "k": 100, "n": 100, "seconds": 8e-6}],
  "attention": [{"s": 100, "b": 1, "heads": 1, "head_dim": 10,
                 "forward_seconds": 2e-6, "backward_seconds": 5e-6}],
  "memory_bound": [{"op": "copy", "bytes": 1000, "seconds": 1e-6},
                   {"op": "tfm.gelu", "bytes": 1000, "seconds": 4e-6},
                   {"op": "tfm.add", "bytes": 1000, "seconds": 1e-6}],
  "collectives": [{"op": "all_reduce", "bytes_sent": 1000, "seconds": 3e-6},
                  {"op": "all_gather", "bytes_sent": 3000, "seconds": 5e-6},
                  {"op": "all_reduce", "bytes_sent": 9000, "seconds": 11e-6}],
  "ring_attention": [{"s": 50, "ranks": 2, "b": 1, "heads": 1,
                      "head_dim": 10, "forward_seconds": 10e-6,
                      "backward_seconds": 16e-6, "bytes_sent": 2000}]
})";

TEST(PlanCalibrate, FitGivesTheRatesBack) {
  Expected<CalibrationFiles> f = fitCalibration(measured, "m.json", 1000);
  ASSERT_TRUE(bool(f)) << toString(f.takeError());
  // GEMMs: 2e6 FLOPs in 2, 4, 8 us: peak 1e12, median 5e11.
  const json::Object &c = f->cluster, &k = f->calibration;
  EXPECT_DOUBLE_EQ(*c.getObject("peak_flops")->getNumber("fp32"), 1e12);
  EXPECT_DOUBLE_EQ(*k.getNumber("gemm"), 0.5);
  // Attention: 3.5 x 2 x 100² x 10 = 7e5 FLOPs in 7 us: 1e11, 0.1 of peak.
  EXPECT_DOUBLE_EQ(*k.getNumber("attention"), 0.1);
  // Copy 1e9 B/s; gelu a quarter of it, add all of it, both 2000 B in 5 us.
  EXPECT_DOUBLE_EQ(*c.getNumber("hbm_bytes_per_second"), 1e9);
  EXPECT_DOUBLE_EQ(*k.getObject("memory_ops")->getNumber("tfm.gelu"), 0.25);
  EXPECT_DOUBLE_EQ(*k.getObject("memory_ops")->getNumber("tfm.add"), 1.0);
  EXPECT_DOUBLE_EQ(*k.getNumber("memory"), 0.4);
  // t = 2 us + bytes / 1e9 B/s, exactly.
  const json::Object *link = c.getObject("intra_node");
  EXPECT_NEAR(*link->getNumber("latency_seconds"), 2e-6, 1e-15);
  EXPECT_NEAR(*link->getNumber("bytes_per_second"), 1e9, 1e-3);
  EXPECT_EQ(*c.getInteger("gpus_per_node"), 2);
  EXPECT_EQ(*c.getInteger("memory_bytes"), 1000);
  // Ring: 3.5 x 2 x 50 x 100 x 10 = 3.5e5 FLOPs in 26 us less 2 x 2 us and
  // 2 us for 2000 bytes: 20 us, 1.75e10 FLOP/s, 0.0175 of peak.
  EXPECT_NEAR(*k.getNumber("ring_attention"), 0.0175, 1e-12);
}

TEST(PlanCalibrate, MissingFiguresAreNamed) {
  std::string text = measured;
  text.replace(text.find("\"copy\""), 6, "\"tfm.x\"");
  Expected<CalibrationFiles> f = fitCalibration(text, "m.json", 1000);
  ASSERT_FALSE(bool(f));
  EXPECT_EQ(toString(f.takeError()), "m.json: 'memory_bound' needs the copy");
  Expected<CalibrationFiles> g =
      fitCalibration(R"({"ranks": 2, "gemm": []})", "m.json", 1000);
  ASSERT_FALSE(bool(g));
  EXPECT_EQ(toString(g.takeError()), "m.json: 'gemm' must be a non-empty list");
}

/// One GPU's figures as sp-calibrate-cuda writes them (made-up rates).
static const char *device = R"({
  "ranks": 1, "backend": "cuda", "device_memory_bytes": 5000,
  "peak_flops": {"bf16": 4e12, "fp16": 4e12},
  "gemm": [{"op": "linear", "dtype": "bf16", "m": 100, "k": 100, "n": 100,
            "seconds": 1e-6},
           {"op": "linear", "dtype": "bf16", "m": 100, "k": 100, "n": 100,
            "seconds": 2e-6},
           {"op": "linear", "dtype": "bf16", "m": 100, "k": 100, "n": 100,
            "seconds": 4e-6},
           {"op": "linear", "dtype": "fp32", "m": 100, "k": 100, "n": 100,
            "seconds": 8e-6},
           {"op": "linear", "dtype": "fp32", "m": 100, "k": 100, "n": 100,
            "seconds": 16e-6}],
  "attention": [{"dtype": "bf16", "s": 100, "b": 1, "heads": 1,
                 "head_dim": 10, "forward_seconds": 0.5e-6,
                 "backward_seconds": 1.25e-6}],
  "memory_bound": [{"op": "copy", "bytes": 1000, "seconds": 1e-6},
                   {"op": "tfm.gelu", "bytes": 1000, "seconds": 2e-6}]
})";

TEST(PlanCalibrate, DeviceFiguresFitAgainstEachPrecisionsPeak) {
  Expected<CalibrationFiles> f = fitCalibration(device, "d.json", 1000);
  ASSERT_TRUE(bool(f)) << toString(f.takeError());
  const json::Object &c = f->cluster, &k = f->calibration;
  // bf16 and fp16 as given; fp32 the fastest measured (2e6 in 8 us).
  const json::Object *peak = c.getObject("peak_flops");
  EXPECT_DOUBLE_EQ(*peak->getNumber("bf16"), 4e12);
  EXPECT_DOUBLE_EQ(*peak->getNumber("fp16"), 4e12);
  EXPECT_DOUBLE_EQ(*peak->getNumber("fp32"), 2.5e11);
  // Over their peaks: bf16 0.5, 0.25, 0.125; fp32 1, 0.5: the median 0.5.
  EXPECT_DOUBLE_EQ(*k.getNumber("gemm"), 0.5);
  // 7e5 FLOPs in 1.75 us: 4e11, 0.1 of bf16's peak.
  EXPECT_DOUBLE_EQ(*k.getNumber("attention"), 0.1);
  EXPECT_DOUBLE_EQ(*k.getObject("memory_ops")->getNumber("tfm.gelu"), 0.5);
  // One rank: no link, and the device's memory, not the machine's.
  EXPECT_EQ(c.get("intra_node"), nullptr);
  EXPECT_EQ(c.get("inter_node"), nullptr);
  EXPECT_EQ(k.get("ring_attention"), nullptr);
  EXPECT_EQ(*c.getInteger("memory_bytes"), 5000);
  EXPECT_EQ(*c.getInteger("gpus_per_node"), 1);
}

TEST(PlanCalibrate, DeviceFiguresAreChecked) {
  // A GEMM faster than the peak given is a wrong peak.
  std::string fast = device;
  fast.replace(fast.find("\"bf16\": 4e12"), 12, "\"bf16\": 1e12");
  Expected<CalibrationFiles> f = fitCalibration(fast, "d.json", 1000);
  ASSERT_FALSE(bool(f));
  EXPECT_EQ(toString(f.takeError()),
            "d.json: a bf16 GEMM ran at 2.000e+12 FLOP/s, above the peak "
            "given (1.000e+12)");
  // Attention in a precision with neither a GEMM nor a peak.
  std::string f8 = device;
  const std::string bf16 = "\"dtype\": \"bf16\", \"s\"";
  f8.replace(f8.find(bf16), bf16.size(), "\"dtype\": \"f8\", \"s\"");
  Expected<CalibrationFiles> g = fitCalibration(f8, "d.json", 1000);
  ASSERT_FALSE(bool(g));
  EXPECT_EQ(toString(g.takeError()),
            "d.json: no f8 GEMM measured and no peak given for it");
  // More than one rank must have measured its link.
  std::string two = device;
  two.replace(two.find("\"ranks\": 1"), 10, "\"ranks\": 2");
  Expected<CalibrationFiles> h = fitCalibration(two, "d.json", 1000);
  ASSERT_FALSE(bool(h));
  EXPECT_EQ(toString(h.takeError()),
            "d.json: 'collectives' must be a non-empty list");
}

TEST(PlanCalibrate, GemmsFitTheClustersWaveModel) {
  // One wave of 4 SMs with 10 x 10 tiles: a 10 x 10 output fills a quarter
  // of it, a 20 x 20 one all of it.
  GemmWaves waves{4, 10, 10, 0.9};
  const char *figures = R"({
    "ranks": 1, "backend": "cuda", "peak_flops": {"bf16": 1e12},
    "gemm": [{"op": "linear", "dtype": "bf16", "m": 10, "k": 100, "n": 10,
              "seconds": 8e-8},
             {"op": "linear_grad_weight", "dtype": "bf16", "m": 30,
              "k": 20, "n": 20, "seconds": 3e-8},
             {"op": "linear_grad_input", "dtype": "bf16", "m": 20, "k": 20,
              "n": 100, "seconds": 1e-7}],
    "attention": [{"dtype": "bf16", "s": 100, "b": 1, "heads": 1,
                   "head_dim": 10, "forward_seconds": 1e-6,
                   "backward_seconds": 1e-6}],
    "memory_bound": [{"op": "copy", "bytes": 1000, "seconds": 1e-6},
                     {"op": "tfm.gelu", "bytes": 1000, "seconds": 2e-6}]
  })";
  // Rates over the peak: 0.25 (a quarter wave), 0.8 and 0.8 (whole
  // waves); over their outputs' wave efficiency: 1.0, 0.8, 0.8. (The
  // weight gradient's output is k x n, one wave; its m x n would be 0.75
  // of two.)
  Expected<CalibrationFiles> f = fitCalibration(figures, "d.json", 1, &waves);
  ASSERT_TRUE(bool(f)) << toString(f.takeError());
  EXPECT_DOUBLE_EQ(*f->calibration.getNumber("gemm"), 0.8);
  // Without the wave model: the median of 0.25, 0.8, 0.8.
  Expected<CalibrationFiles> g = fitCalibration(figures, "d.json", 1);
  ASSERT_TRUE(bool(g)) << toString(g.takeError());
  EXPECT_DOUBLE_EQ(*g->calibration.getNumber("gemm"), 0.8);
  // The quarter-wave GEMM decides the median of two.
  std::string two = figures;
  two.erase(two.find(",\n             {\"op\": \"linear_grad_input\""),
            two.find("],\n    \"attention\"") -
                two.find(",\n             {\"op\": \"linear_grad_input\""));
  Expected<CalibrationFiles> h = fitCalibration(two, "d.json", 1, &waves);
  Expected<CalibrationFiles> i = fitCalibration(two, "d.json", 1);
  ASSERT_TRUE(h && i);
  EXPECT_DOUBLE_EQ(*h->calibration.getNumber("gemm"), 0.9);
  EXPECT_DOUBLE_EQ(*i->calibration.getNumber("gemm"), 0.525);
}

TEST(PlanCalibrate, SharedCoresPassToTheCluster) {
  std::string text = measured;
  text.replace(text.find("\"ranks\": 2,"), 11,
               "\"ranks\": 2, \"shared_cores\": {\"cores\": 1, "
               "\"solo_speedup\": 1.8},");
  Expected<CalibrationFiles> f = fitCalibration(text, "m.json", 1000);
  ASSERT_TRUE(bool(f)) << toString(f.takeError());
  const json::Object *shared = f->cluster.getObject("shared_cores");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(*shared->getInteger("cores"), 1);
  EXPECT_DOUBLE_EQ(*shared->getNumber("solo_speedup"), 1.8);
  // Without the figure, none.
  Expected<CalibrationFiles> g = fitCalibration(measured, "m.json", 1000);
  ASSERT_TRUE(bool(g));
  EXPECT_EQ(g->cluster.get("shared_cores"), nullptr);
}

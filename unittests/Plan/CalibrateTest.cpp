//===- CalibrateTest.cpp - sp-plan --calibrate's fit ----------------------===//
//
// fitCalibration on figures made from known rates: it must give those rates
// back (the median GEMM over the fastest, attention by the compiler's FLOP
// count, each memory-bound kernel over the copy, the link's latency and
// bandwidth exactly from exact times, ring attention with the link's time
// for its bytes taken off).
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

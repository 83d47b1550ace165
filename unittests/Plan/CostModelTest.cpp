//===- CostModelTest.cpp - sp-plan's step-time model, piece by piece ------===//
//
// Each formula of docs/planner.md on numbers worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "sp-plan/CostModel.h"
#include "sp-plan/Cluster.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace seqpar::plan;
using llvm::Expected;
using llvm::toString;

TEST(PlanCostModel, BubbleFraction) {
  EXPECT_DOUBLE_EQ(bubbleFraction(1, 8), 0.0);
  EXPECT_DOUBLE_EQ(bubbleFraction(2, 1), 0.5);
  EXPECT_DOUBLE_EQ(bubbleFraction(4, 8), 3.0 / 11.0);
}

TEST(PlanCostModel, AxisIsIntraNodeByTheRanksInsideIt) {
  // Row-major ranks: tp's 8 ranks are adjacent, a dp group spans 32.
  Mesh mesh{{"dp", "tp"}, {4, 8}};
  EXPECT_TRUE(axisIsIntraNode(mesh, 1, 8));
  EXPECT_FALSE(axisIsIntraNode(mesh, 0, 8));
  Mesh small{{"dp", "tp"}, {2, 2}};
  EXPECT_TRUE(axisIsIntraNode(small, 0, 8));
  EXPECT_TRUE(axisIsIntraNode(small, 1, 8));
  // Groups of 3 or 6 adjacent ranks can straddle nodes of 8 (ranks 6..8),
  // not nodes of 6.
  Mesh odd{{"pp", "dp"}, {2, 3}};
  EXPECT_FALSE(axisIsIntraNode(odd, 0, 8));
  EXPECT_FALSE(axisIsIntraNode(odd, 1, 8));
  EXPECT_TRUE(axisIsIntraNode(odd, 0, 6));
  EXPECT_TRUE(axisIsIntraNode(odd, 1, 6));
}

TEST(PlanCostModel, LinkSecondsAreBandwidthPlusLatencyPerCollective) {
  Link link{1e9, 1e-5};
  EXPECT_DOUBLE_EQ(linkSeconds(1000000000, 2, link), 1.0 + 2e-5);
  EXPECT_DOUBLE_EQ(linkSeconds(0, 0, link), 0.0);
}

static Cluster testCluster() {
  Cluster c;
  c.nodes = 2;
  c.gpusPerNode = 2;
  c.intraNode = {1e9, 0};
  c.interNode = {1e9, 0};
  c.memoryBytesPerSecond = 1e12;
  return c;
}

TEST(PlanCostModel, MemoryBoundOpsRunAtTheCalibratedBandwidth) {
  StageFacts f;
  // 0.8e12 bytes at 0.8 x 1e12 B/s: 1 s, added to 1 s of GEMMs.
  f.memoryBoundBytes["tfm.add"] = 800000000000;
  f.gemmFlops = 7000000000000;
  Mesh mesh{{"tp"}, {2}};
  StageTime t = stageTime(f, mesh, testCluster(), 1e13, Calibration(), 1);
  EXPECT_DOUBLE_EQ(t.compute, 2.0);
  Calibration slow;
  slow.memory = 0.4;
  EXPECT_DOUBLE_EQ(stageTime(f, mesh, testCluster(), 1e13, slow, 1).compute,
                   3.0);
}

TEST(PlanCostModel, EachMeasuredOpAndRingAttentionRunAtTheirOwnRate) {
  StageFacts f;
  // tfm.gelu at its own 0.2 (4 s), tfm.add at the default 0.8 (1 s).
  f.memoryBoundBytes["tfm.gelu"] = 800000000000;
  f.memoryBoundBytes["tfm.add"] = 800000000000;
  // 2e13 attention FLOPs, half of them a ring's: 1 s at 0.5 of 1e13 FLOP/s
  // for the plain half, 4 s at 0.125 for the ring's.
  f.attentionFlops = 10000000000000;
  f.ringAttentionFlops = 5000000000000;
  Mesh mesh{{"cp"}, {2}};
  Calibration c;
  c.memoryByOp["tfm.gelu"] = 0.2;
  c.ringAttention = 0.125;
  EXPECT_DOUBLE_EQ(stageTime(f, mesh, testCluster(), 1e13, c, 1).compute, 10.0);
  EXPECT_EQ(totalMemoryBoundBytes(f), 1600000000000);
  // Unset, ring attention runs at attention's rate.
  c.ringAttention.reset();
  EXPECT_DOUBLE_EQ(stageTime(f, mesh, testCluster(), 1e13, c, 1).compute, 7.0);
}

TEST(PlanCostModel, MaterializedScoresMoveEachScoreThroughEveryKernel) {
  // bf16 forward: QK^T 2 + softmax 4 + P V 2; dropout 2 + 2 + a 1-byte mask.
  EXPECT_EQ(materializedScoreBytes(2, false, false), 8);
  EXPECT_EQ(materializedScoreBytes(2, true, false), 13);
  // bf16 backward: P again (S 2 + softmax 4), dP 2 + P 2 + softmax grad 6
  // + dS twice 4; with dropout, the mask again and its gradient, 5 each.
  EXPECT_EQ(materializedScoreBytes(2, false, true), 20);
  EXPECT_EQ(materializedScoreBytes(2, true, true), 30);
  EXPECT_EQ(materializedScoreBytes(4, true, true), 58);
}

TEST(PlanCostModel, MaterializedScoresCostTimeOnlyWhenCalibratedSo) {
  StageFacts f;
  // 1 s of GEMMs; 0.4e12 score bytes at 0.8 x 1e12 B/s: 0.5 s.
  f.gemmFlops = 7000000000000;
  f.attentionScoreBytes = 400000000000;
  Mesh mesh{{"tp"}, {2}};
  Calibration c;
  EXPECT_DOUBLE_EQ(stageTime(f, mesh, testCluster(), 1e13, c, 1).compute, 1.0);
  c.attentionScores = AttentionScores::materialized;
  EXPECT_DOUBLE_EQ(stageTime(f, mesh, testCluster(), 1e13, c, 1).compute, 1.5);
  // At the calibrated memory fraction, not a per-op one.
  c.memory = 0.4;
  c.memoryByOp["tfm.attention"] = 0.1;
  EXPECT_DOUBLE_EQ(stageTime(f, mesh, testCluster(), 1e13, c, 1).compute, 2.0);
}

TEST(PlanCostModel, CalibrationFileNamesTheAttentionScores) {
  Expected<Calibration> c =
      parseCalibration(R"({"attention_scores": "materialized"})", "cal.json");
  ASSERT_TRUE(bool(c)) << toString(c.takeError());
  EXPECT_EQ(c->attentionScores, AttentionScores::materialized);
  c = parseCalibration(R"({"attention_scores": "fused"})", "cal.json");
  ASSERT_TRUE(bool(c)) << toString(c.takeError());
  EXPECT_EQ(c->attentionScores, AttentionScores::fused);
  for (const char *bad :
       {R"({"attention_scores": "flash"})", R"({"attention_scores": 1})"}) {
    Expected<Calibration> e = parseCalibration(bad, "cal.json");
    ASSERT_FALSE(bool(e)) << bad;
    EXPECT_EQ(toString(e.takeError()),
              "cal.json: 'attention_scores' must be \"fused\" or "
              "\"materialized\"");
  }
}

TEST(PlanCostModel, CalibrationFileNamesEachOpsEfficiency) {
  Expected<Calibration> c = parseCalibration(
      R"({"gemm": 0.5, "ring_attention": 0.25,
          "memory_ops": {"tfm.gelu": 0.1}})",
      "cal.json");
  ASSERT_TRUE(bool(c)) << toString(c.takeError());
  EXPECT_DOUBLE_EQ(c->ring(), 0.25);
  EXPECT_DOUBLE_EQ(c->memoryOf("tfm.gelu"), 0.1);
  EXPECT_DOUBLE_EQ(c->memoryOf("tfm.add"), 0.8);
  Expected<Calibration> bad =
      parseCalibration(R"({"memory_ops": {"tfm.gelu": 2}})", "cal.json");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(toString(bad.takeError()),
            "cal.json: 'memory_ops.tfm.gelu' must be in (0, 1]");
}

TEST(PlanCostModel, ClusterNeedsItsMemoryBandwidth) {
  std::string ok = R"({"nodes": 1, "gpus_per_node": 8, "memory_bytes": 100,
      "peak_flops": {"bf16": 1e12}, "hbm_bytes_per_second": 2e12,
      "intra_node": {"bytes_per_second": 1e9, "latency_seconds": 0},
      "inter_node": {"bytes_per_second": 1e9, "latency_seconds": 0}})";
  Expected<Cluster> c = parseCluster(ok, "c.json");
  ASSERT_TRUE(bool(c)) << toString(c.takeError());
  EXPECT_DOUBLE_EQ(c->memoryBytesPerSecond, 2e12);
  std::string missing = ok;
  missing.replace(missing.find("\"hbm_bytes_per_second\": 2e12,"), 30, "");
  Expected<Cluster> bad = parseCluster(missing, "c.json");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(toString(bad.takeError()),
            "c.json: 'hbm_bytes_per_second' must be a positive number");
}

TEST(PlanCostModel, OneGpuNeedsNoLink) {
  std::string one = R"({"nodes": 1, "gpus_per_node": 1, "memory_bytes": 100,
      "peak_flops": {"bf16": 1e12}, "hbm_bytes_per_second": 2e12})";
  Expected<Cluster> c = parseCluster(one, "c.json");
  ASSERT_TRUE(bool(c)) << toString(c.takeError());
  EXPECT_EQ(c->gpus(), 1);
  // Two GPUs send to each other: their link must be described.
  std::string two = one;
  two.replace(two.find("\"gpus_per_node\": 1"), 18, "\"gpus_per_node\": 2");
  Expected<Cluster> bad = parseCluster(two, "c.json");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(toString(bad.takeError()),
            "c.json: 'intra_node' must be an object with bytes_per_second "
            "and latency_seconds");
}

TEST(PlanCostModel, StageTimeExposesWhatNothingHides) {
  StageFacts f;
  // 1 s of GEMMs (7e12 at 0.7 x 1e13) and 1 s of attention (5e12 at 0.5).
  f.gemmFlops = 7000000000000;
  f.attentionFlops = 5000000000000;
  // Half the FLOPs are the backward's: 1 s for the buckets to hide behind.
  f.backwardFlops = 6000000000000;
  AxisTraffic tp;
  tp.exposedBytes = 1000000000; // 1 s
  tp.exposedCount = 1;
  tp.fusedBytes = 2000000000; // 2 s, 1/4 exposed with 4 chunks
  tp.fusedCount = 2;
  f.traffic["tp"] = tp;
  AxisTraffic dp;
  dp.asyncBytes = 3000000000; // 3 s in 3 buckets: 2 s exceed the backward
  dp.asyncCount = 3;
  f.traffic["dp"] = dp;
  Mesh mesh{{"dp", "tp"}, {2, 2}};
  StageTime t = stageTime(f, mesh, testCluster(), 1e13, Calibration(), 4);
  EXPECT_DOUBLE_EQ(t.compute, 2.0);
  EXPECT_DOUBLE_EQ(t.exposedComm, 1.0 + 0.5 + 2.0);
  EXPECT_DOUBLE_EQ(t.hiddenComm, 1.5 + 1.0);
  EXPECT_DOUBLE_EQ(t.total(), 5.5);

  // Buckets the backward covers: only the last one shows.
  f.traffic["dp"].asyncBytes = 600000000; // 0.6 s in 3 buckets
  t = stageTime(f, mesh, testCluster(), 1e13, Calibration(), 4);
  EXPECT_DOUBLE_EQ(t.exposedComm, 1.0 + 0.5 + 0.2);
}

TEST(PlanCostModel, PredictStretchesTheSlowestStageByTheBubble) {
  StageFacts fast, slow;
  fast.gemmFlops = 7000000000000;  // 1 s
  slow.gemmFlops = 14000000000000; // 2 s
  fast.modelFlops = fast.gemmFlops;
  slow.modelFlops = slow.gemmFlops;
  slow.recomputeFlops = 7000000000000;
  Mesh mesh{{"pp"}, {2}};
  // Two micro-batches of 0.5 s on the fast stage and 1 s on the slow one:
  // the first crosses both (1.5 s), the second follows at the slow
  // stage's pace (1 s); the slow stage idles 0.5 of 2.5 s.
  Prediction p = predict({fast, slow}, mesh, testCluster(), 1e13, Calibration(),
                         1, /*microBatches=*/2,
                         /*tokensPerStep=*/3000);
  EXPECT_DOUBLE_EQ(p.stepSeconds, 2.5);
  EXPECT_DOUBLE_EQ(p.bubble, 0.2);
  EXPECT_DOUBLE_EQ(p.tokensPerSecond, 1200.0);
  // 21e12 model FLOPs over 2 stages x 2.5 s x 1e13.
  EXPECT_DOUBLE_EQ(p.mfu, 21e12 / 5e13);
  EXPECT_DOUBLE_EQ(p.hfu, 28e12 / 5e13);
  // Equal stages: the slowest stage's step over 1 - (P - 1) / (M + P - 1).
  Mesh four{{"pp"}, {4}};
  Prediction q = predict({slow, slow, slow, slow}, four, testCluster(), 1e13,
                         Calibration(), 1, /*microBatches=*/3,
                         /*tokensPerStep=*/3000);
  EXPECT_DOUBLE_EQ(q.bubble, bubbleFraction(4, 3));
  EXPECT_DOUBLE_EQ(q.stepSeconds, 2.0 / (1 - bubbleFraction(4, 3)));
}

TEST(PlanCostModel, SharedCoresLendIdleStagesCores) {
  // One node of 4 CPU ranks on shared cores, a rank alone twice as fast.
  Cluster c = testCluster();
  c.nodes = 1;
  c.gpusPerNode = 4;
  c.soloSpeedup = 2.0;
  StageFacts f;
  f.gemmFlops = 7000000000000; // 1 s a stage
  Mesh pp4{{"pp"}, {4}};
  // pp 4, M 1: the path is 4 s at the shared rate, 2 s at a lone rank's;
  // the node's work is 1 s a rank.
  Prediction one = predict({f, f, f, f}, pp4, c, 1e13, Calibration(), 1, 1, 1);
  EXPECT_DOUBLE_EQ(one.stepSeconds, 2.0);
  // M 8: the path (4 + 7) / 8 s over 2 is below the work, 1 s.
  Prediction eight =
      predict({f, f, f, f}, pp4, c, 1e13, Calibration(), 1, 8, 1);
  EXPECT_DOUBLE_EQ(eight.stepSeconds, 1.0);
  // A heavier last stage (2 s): the node's work, 1.25 s, above the path
  // (5 + 7 x 2) / 8 / 2; the slowest stage runs faster than its rate, so
  // it never idles.
  StageFacts heavy;
  heavy.gemmFlops = 14000000000000;
  Prediction uneven =
      predict({f, f, f, heavy}, pp4, c, 1e13, Calibration(), 1, 8, 1);
  EXPECT_DOUBLE_EQ(uneven.stepSeconds, 1.25);
  EXPECT_DOUBLE_EQ(uneven.bubble, 0.0);
  // Without a pipeline nothing is idle: the shared rate throughout.
  Mesh tp4{{"tp"}, {4}};
  EXPECT_DOUBLE_EQ(
      predict({f}, tp4, c, 1e13, Calibration(), 1, 1, 1).stepSeconds, 1.0);
  // Each stage a node of its own (4 nodes of 2 ranks, pp 4 over 8 ranks):
  // no stage lends its cores to another.
  Cluster wide = c;
  wide.nodes = 4;
  wide.gpusPerNode = 2;
  Mesh pp4dp2{{"pp", "dp"}, {4, 2}};
  EXPECT_EQ(stagesPerNode(wide, 8, 4), 1);
  EXPECT_DOUBLE_EQ(
      predict({f, f, f, f}, pp4dp2, wide, 1e13, Calibration(), 1, 1, 1)
          .stepSeconds,
      4.0);
  // pp 4 over 8 ranks on nodes of 4: two stages a node.
  Cluster two = c;
  two.nodes = 2;
  EXPECT_EQ(stagesPerNode(two, 8, 4), 2);
  // The bound's stretch: (M + P - 1) / M over S, at least 1.
  EXPECT_DOUBLE_EQ(pipelineStretch(c, 4, 4, 1), 2.0);
  EXPECT_DOUBLE_EQ(pipelineStretch(c, 4, 4, 8), 1.0);
  EXPECT_DOUBLE_EQ(pipelineStretch(wide, 8, 4, 1), 4.0);
  EXPECT_DOUBLE_EQ(pipelineStretch(testCluster(), 4, 2, 2), 1.5);

  // The cluster file's field, checked.
  std::string base = R"({"nodes": 1, "gpus_per_node": 4, "memory_bytes": 100,
      "peak_flops": {"fp32": 1e11}, "hbm_bytes_per_second": 2e10,
      "intra_node": {"bytes_per_second": 1e9, "latency_seconds": 0},
      "inter_node": {"bytes_per_second": 1e9, "latency_seconds": 0})";
  Expected<Cluster> ok = parseCluster(
      base + R"(, "shared_cores": {"cores": 2, "solo_speedup": 2.2}})", "c");
  ASSERT_TRUE(bool(ok)) << toString(ok.takeError());
  EXPECT_DOUBLE_EQ(*ok->soloSpeedup, 2.2);
  for (const char *bad :
       {R"({"cores": 4, "solo_speedup": 2})",
        R"({"cores": 2, "solo_speedup": 0.5})", R"({"solo_speedup": 2})"}) {
    Expected<Cluster> e =
        parseCluster(base + ", \"shared_cores\": " + bad + "}", "c");
    ASSERT_FALSE(bool(e)) << bad;
    EXPECT_EQ(toString(e.takeError()),
              "c: 'shared_cores' must be {\"cores\": C, \"solo_speedup\": "
              "S}: C an integer in [1, gpus_per_node), S >= 1");
  }
}

TEST(PlanCostModel, CalibrationFileOverridesAndChecksItsRates) {
  llvm::Expected<Calibration> c = parseCalibration(R"({"gemm": 0.5})", "f");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_DOUBLE_EQ(*c->gemm, 0.5);
  EXPECT_DOUBLE_EQ(c->attention, Calibration().attention);
  for (const char *bad : {R"({"gemm": 0})", R"({"attention": 1.5})",
                          R"({"gemm": "fast"})", "[1]"}) {
    llvm::Expected<Calibration> e = parseCalibration(bad, "f");
    EXPECT_FALSE(bool(e)) << bad;
    if (!e)
      llvm::consumeError(e.takeError());
  }
}

TEST(PlanCostModel, WaveEfficiencyCountsWholeTilesInWholeWaves) {
  GemmWaves w{4, 256, 128, 0.8};
  // 2 x 2 = 4 tiles of 256 x 128: one whole wave.
  EXPECT_DOUBLE_EQ(waveEfficiency(512, 256, w), 1.0);
  // 5 tiles: two waves of 4 slots, 5 busy.
  EXPECT_DOUBLE_EQ(waveEfficiency(1280, 128, w), 5.0 / 8.0);
  // Partial tiles count whole: 300 x 100 fills 2 x 1 tiles (or the
  // transpose's 1 x 3), one wave of 4 slots of 256 x 128.
  EXPECT_DOUBLE_EQ(waveEfficiency(300, 100, w), 300.0 * 100 / (4 * 256 * 128));
  // The better orientation: 128 x 1024 is 1 x 8 tiles of 256 x 128 (two
  // waves, half of each tile empty) or 1 x 4 of 128 x 256 (one wave, full).
  EXPECT_DOUBLE_EQ(waveEfficiency(128, 1024, w), 1.0);
  EXPECT_DOUBLE_EQ(waveEfficiency(0, 1024, w), 1.0);
}

TEST(PlanCostModel, GemmsRunAtTheWaveModelsRateByTheirOutputShape) {
  Cluster c = testCluster();
  StageFacts f;
  f.gemmFlops = 3000000000000;
  // 1e12 FLOPs of a whole-wave GEMM, 1e12 of one at 5/8 of its waves, and
  // 1e12 with no shape (at the whole-wave rate).
  f.gemmFlopsByOutput[{512, 256}] = 1000000000000;
  f.gemmFlopsByOutput[{1280, 128}] = 1000000000000;
  // Without a wave model: every FLOP at the default 0.70 of 1e13.
  EXPECT_DOUBLE_EQ(gemmSeconds(f, c, 1e13, Calibration()), 3e12 / 7e12);
  c.gemmWaves = GemmWaves{4, 256, 128, 0.8};
  EXPECT_DOUBLE_EQ(gemmSeconds(f, c, 1e13, Calibration()),
                   (1.0 + 8.0 / 5.0 + 1.0) / 8.0);
  // A calibrated rate replaces the model's whole-wave efficiency.
  Calibration half;
  half.gemm = 0.5;
  EXPECT_DOUBLE_EQ(gemmSeconds(f, c, 1e13, half),
                   (1.0 + 8.0 / 5.0 + 1.0) / 5.0);
}

TEST(PlanCostModel, ClusterReadsAndChecksItsWaveModel) {
  std::string base = R"({"nodes": 1, "gpus_per_node": 8, "memory_bytes": 100,
      "peak_flops": {"bf16": 1e12}, "hbm_bytes_per_second": 2e12,
      "intra_node": {"bytes_per_second": 1e9, "latency_seconds": 0},
      "inter_node": {"bytes_per_second": 1e9, "latency_seconds": 0})";
  Expected<Cluster> none = parseCluster(base + "}", "c.json");
  ASSERT_TRUE(bool(none)) << toString(none.takeError());
  EXPECT_FALSE(none->gemmWaves.has_value());
  Expected<Cluster> c =
      parseCluster(base + R"(, "gemm_waves": {"sms": 108, "tile": [256, 128],
      "efficiency": 0.859}})",
                   "c.json");
  ASSERT_TRUE(bool(c)) << toString(c.takeError());
  ASSERT_TRUE(c->gemmWaves.has_value());
  EXPECT_EQ(c->gemmWaves->sms, 108);
  EXPECT_EQ(c->gemmWaves->tileRows, 256);
  EXPECT_EQ(c->gemmWaves->tileCols, 128);
  EXPECT_DOUBLE_EQ(c->gemmWaves->efficiency, 0.859);
  for (const char *bad :
       {R"({"sms": 0, "tile": [256, 128], "efficiency": 0.8})",
        R"({"sms": 108, "tile": [256], "efficiency": 0.8})",
        R"({"sms": 108, "tile": [256, 128], "efficiency": 1.5})",
        R"({"sms": 108, "tile": [256, 128]})", "[]"}) {
    Expected<Cluster> e =
        parseCluster(base + ", \"gemm_waves\": " + bad + "}", "c.json");
    ASSERT_FALSE(bool(e)) << bad;
    EXPECT_EQ(toString(e.takeError()),
              "c.json: 'gemm_waves' must be {\"sms\": N, \"tile\": [rows, "
              "cols], \"efficiency\": E}: positive integers, E in (0, 1]")
        << bad;
  }
}

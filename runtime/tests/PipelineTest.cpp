//===- PipelineTest.cpp - pipeline stages in the runtime (under mpirun) ---===//
//
// With a pipeline axis (the mesh's first, "pp" = 2) and the rest of the
// world on a data axis: the model JSON's stage records and per-parameter
// stages, which rank holds and owns a parameter, the stage a rank selects,
// sends that complete without their recv posted (both ranks of a pair send
// first) and arrive in order, a dump assembled from the owner stage's copy,
// and the batch every stage of a data-parallel replica gets.
//
//===----------------------------------------------------------------------===//

#include "../driver/Batch.h"
#include "../driver/Model.h"
#include "../driver/Params.h"
#include "../driver/SafeTensors.h"
#include "../driver/TiedCheck.h"
#include "CollectiveTestUtil.h"

#include "sprt/runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace {
using nlohmann::json;
using sprt_test::worldSize;

/// The mesh ["pp" = 2, "dp" = world / 2].
void pipelineMesh() {
  const int64_t sizes[2] = {2, worldSize() / 2};
  ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
}

json planned(int64_t params, int64_t arena) {
  return {{"parameters", params},
          {"optimizer_state", 0},
          {"tokens", 128},
          {"arena", arena},
          {"peak_bytes", params + 128 + arena}};
}

/// An attention record of the model JSON ("attention"): `rows` query rows.
json attentionJson(int64_t rows, bool backward) {
  return {{"rows", rows},    {"batch", 2},           {"heads", 4},
          {"kv_heads", 2},   {"head_dim", 8},        {"dropout", 0.1},
          {"causal", true},  {"document_causal", 0}, {"batch_axis", 1},
          {"head_axis", -1}, {"seq_axis", -1},       {"backward", backward}};
}

/// A model of two stages: "t" [4, 2] read by both (tied), "w" [4, 2] by
/// stage 1 only, "d" [4, 2] split over the data axis by stage 1 only; stage
/// 1 has an attention, whose gradient it computes.
json pipelineJson() {
  int64_t dp = worldSize() / 2;
  json split = json::array({{{"dim", 0}, {"axis", 1}, {"blocks", 1}}});
  json params = json::array({{{"name", "t"},
                              {"shape", {4, 2}},
                              {"local_shape", {4, 2}},
                              {"init", "normal"},
                              {"std", 0.02},
                              {"splits", json::array()},
                              {"stages", {0, 1}}},
                             {{"name", "w"},
                              {"shape", {4, 2}},
                              {"local_shape", {4, 2}},
                              {"init", "normal"},
                              {"std", 0.02},
                              {"splits", json::array()},
                              {"stages", {1}}},
                             {{"name", "d"},
                              {"shape", {4, 2}},
                              {"local_shape", {4 / dp, 2}},
                              {"init", "ones"},
                              {"splits", split},
                              {"stages", {1}}}});
  return {{"format_version", 3},
          {"eval_step", false},
          {"mesh", {{"axes", {"pp", "dp"}}, {"sizes", {2, dp}}}},
          {"seq", 4},
          {"batch", 2 * dp},
          {"vocab", 50},
          {"arena_bytes", 4096},
          {"flops_per_step", 3000},
          {"recompute_flops_per_step", 0},
          {"workspace_bytes", 64},
          {"batch_axis", 1},
          {"seq_axis", -1},
          {"params", params},
          {"scalars", 1},
          {"grads", {0, 1, 2}},
          {"grad_shard_axes", {-1, -1, -1}},
          {"optimizer", "sgd"},
          {"planned", planned(96, 4096)},
          {"attention", {attentionJson(4, false)}},
          {"pipeline_axis", 0},
          {"stages",
           {{{"arena_bytes", 1024},
             {"workspace_bytes", 0},
             {"flops_per_step", 1000},
             {"recompute_flops_per_step", 10},
             {"planned", planned(32, 1024)},
             {"grads", {0}},
             {"grad_shard_axes", {-1}}},
            {{"arena_bytes", 4096},
             {"workspace_bytes", 64},
             {"flops_per_step", 3000},
             {"recompute_flops_per_step", 30},
             {"planned", planned(96, 4096)},
             {"grads", {2, 0, 1}},
             {"grad_shard_axes", {-1, -1, -1}},
             {"attention", {attentionJson(4, true)}}}}}};
}

sprt::Model parsed(const json &j) {
  sprt::Model m;
  std::string error;
  EXPECT_TRUE(m.parse(j.dump().c_str(), error)) << error;
  return m;
}

TEST(Pipeline, ModelParsesTheStages) {
  sprt::Model m = parsed(pipelineJson());
  EXPECT_EQ(m.pipelineAxis, 0);
  ASSERT_EQ(m.stages.size(), 2u);
  EXPECT_EQ(m.numStages(), 2);
  EXPECT_EQ(m.stages[0].arenaBytes, 1024);
  EXPECT_EQ(m.stages[0].flopsPerStep, 1000);
  EXPECT_EQ(m.stages[0].recomputeFlopsPerStep, 10);
  EXPECT_EQ(m.stages[0].plannedPeak, 32 + 128 + 1024);
  EXPECT_EQ(m.stages[0].grads, std::vector<int64_t>({0}));
  EXPECT_EQ(m.stages[1].workspaceBytes, 64);
  EXPECT_EQ(m.stages[1].grads, std::vector<int64_t>({2, 0, 1}));
  EXPECT_EQ(m.params[0].stages, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(m.params[1].stages, std::vector<int64_t>({1}));
  EXPECT_EQ(m.params[1].ownerStage(), 1);
  EXPECT_EQ(m.params[1].pipelineAxis, 0);
  EXPECT_TRUE(m.stages[0].attention.empty());
  ASSERT_EQ(m.stages[1].attention.size(), 1u);
  const sprt::AttentionShape &a = m.stages[1].attention[0];
  EXPECT_EQ(a.args.S, 4);
  EXPECT_EQ(a.args.B, 2);
  EXPECT_EQ(a.args.heads, 4);
  EXPECT_EQ(a.args.kv_heads, 2);
  EXPECT_EQ(a.args.head_dim, 8);
  EXPECT_EQ(a.args.dropout_rate, 0.1);
  EXPECT_EQ(a.args.causal, 1);
  EXPECT_EQ(a.args.document_causal, 0);
  EXPECT_EQ(a.args.batch_axis, 1);
  EXPECT_EQ(a.args.head_axis, -1);
  EXPECT_EQ(a.args.seq_axis, -1);
  EXPECT_TRUE(a.backward);
  // Before a stage is selected: the program's figures.
  EXPECT_EQ(m.arenaBytes, 4096);
  ASSERT_EQ(m.attention.size(), 1u);
  EXPECT_FALSE(m.attention[0].backward);
  EXPECT_EQ(m.allGrads, std::vector<int64_t>({0, 1, 2}));

  // Without a pipeline: no stages, every parameter held, one stage; a
  // program without "attention" has none to ready.
  json plain = pipelineJson();
  plain.erase("pipeline_axis");
  plain.erase("stages");
  plain.erase("attention");
  sprt::Model one = parsed(plain);
  EXPECT_TRUE(one.attention.empty());
  EXPECT_EQ(one.pipelineAxis, -1);
  EXPECT_EQ(one.numStages(), 1);
  EXPECT_TRUE(one.params[1].held());
  EXPECT_EQ(one.params[1].ownerStage(), 0);

  // Records that do not fit the pipeline axis are refused, naming what.
  std::string error;
  json fewer = pipelineJson();
  fewer["stages"].erase(1);
  sprt::Model bad;
  EXPECT_FALSE(bad.parse(fewer.dump().c_str(), error));
  EXPECT_NE(error.find("1 stage records for a pipeline axis of 2 stages"),
            std::string::npos)
      << error;
  json outside = pipelineJson();
  outside["params"][1]["stages"] = {2};
  sprt::Model bad2;
  EXPECT_FALSE(bad2.parse(outside.dump().c_str(), error));
  EXPECT_NE(error.find("parameter 'w' no stages within the pipeline's 2"),
            std::string::npos)
      << error;
}

TEST(Pipeline, HeldOwnsShardAndTheSelectedStage) {
  pipelineMesh();
  sprt::Model m = parsed(pipelineJson());
  int64_t stage = sprt_axis_coord(0), d = sprt_axis_coord(1);
  // The tied "t": held by both stages, owned by stage 0's data rank 0.
  EXPECT_TRUE(m.params[0].held());
  EXPECT_EQ(m.params[0].ownsShard(), stage == 0 && d == 0);
  // "w": stage 1's only, owned there by data rank 0.
  EXPECT_EQ(m.params[1].held(), stage == 1);
  EXPECT_EQ(m.params[1].ownsShard(), stage == 1 && d == 0);
  // "d", split over the data axis: every data rank of stage 1 owns its
  // shard; sliced further over the data axis, the same.
  EXPECT_EQ(m.params[2].ownsShard(), stage == 1);
  EXPECT_EQ(m.params[2].ownsShard(sprt::Slicing{{1}}), stage == 1);
  m.selectStage();
  EXPECT_EQ(m.stage, stage);
  EXPECT_EQ(m.arenaBytes, stage == 0 ? 1024 : 4096);
  EXPECT_EQ(m.flopsPerStep, stage == 0 ? 1000 : 3000);
  EXPECT_EQ(m.recomputeFlopsPerStep, stage == 0 ? 10 : 30);
  EXPECT_EQ(m.workspaceBytes, stage == 0 ? 0 : 64);
  EXPECT_EQ(m.plannedPeak, stage == 0 ? 1184 : 4320);
  EXPECT_EQ(m.grads, stage == 0 ? std::vector<int64_t>({0})
                                : std::vector<int64_t>({2, 0, 1}));
  EXPECT_EQ(m.allGrads, std::vector<int64_t>({0, 1, 2}));
  // The stage's attentions, which the driver readies before step 1.
  EXPECT_EQ(m.attention.size(), stage == 0 ? 0u : 1u);
}

// --check-tied's comparison: the holders of each tied parameter must agree;
// a stage that does not hold it is ignored; a difference names the
// parameter, the step, both stages and their ranks.
TEST(Pipeline, TiedComparisonNamesTheDifferingCopies) {
  sprt::Model m = parsed(pipelineJson());
  std::vector<int64_t> tied = sprt::tiedParams(m);
  EXPECT_EQ(tied, std::vector<int64_t>({0}));
  // Per stage: its world rank, then its hash of "t".
  EXPECT_EQ(sprt::compareTiedCopies(m, tied, {4, 7, 5, 7}, 2, 3), "");
  EXPECT_EQ(sprt::compareTiedCopies(m, tied, {4, 7, 5, 8}, 2, 3),
            "--check-tied: after step 3, the copies of 't' differ: pipeline "
            "stage 0 (rank 4) holds bytes hashing to 0000000000000007, stage "
            "1 (rank 5) to 0000000000000008");
  // "w" is held by stage 1 alone: never compared.
  json three = pipelineJson();
  three["params"][1]["stages"] = {0, 1};
  sprt::Model m3 = parsed(three);
  tied = sprt::tiedParams(m3);
  EXPECT_EQ(tied, std::vector<int64_t>({0, 1}));
  EXPECT_NE(sprt::compareTiedCopies(m3, tied, {0, 1, 2, 1, 1, 3}, 2, 1)
                .find("the copies of 'w' differ"),
            std::string::npos);
  // The hash is XXH3-64 of the bytes: one flipped bit changes it.
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
  EXPECT_EQ(sprt::hashBytes(a, sizeof(a)), sprt::hashBytes(b, sizeof(b)));
  reinterpret_cast<unsigned char *>(b)[5] ^= 1;
  EXPECT_NE(sprt::hashBytes(a, sizeof(a)), sprt::hashBytes(b, sizeof(b)));
}

// The collective check passes when every stage holds the same bytes of the
// tied parameter (every rank calls it; a failure would end the job).
TEST(Pipeline, TiedCheckPassesOnEqualCopies) {
  pipelineMesh();
  sprt::Model m = parsed(pipelineJson());
  m.selectStage();
  std::vector<float> t{1, 2, 3, 4, 5, 6, 7, 8}, w(8, 0.5f), d(8, 1.0f);
  float *shards[3] = {t.data(), w.data(), d.data()};
  sprt::checkTiedCopies(m, shards, 1);
  SUCCEED();
}

// Both ranks of each pipeline pair send two messages first, then receive
// two: with sends that waited for their recv this would deadlock. The
// messages arrive in the order sent, with the values at the time of the
// send (the staging copy), and every send is complete after
// sprt_complete_sends.
TEST(Pipeline, SendsCompleteWithoutTheirRecvAndInOrder) {
  pipelineMesh();
  const int64_t me = sprt_world_rank();
  // 4 MiB: above MPI's eager limit, a blocking send would wait.
  std::vector<float> a(1 << 20), b(7), inA(1 << 20), inB(7);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(me * 1000 + int64_t(i));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(-me * 1000 - int64_t(i));
  const int64_t before = sprt_pending_sends();
  sprt_send(a.data(), int64_t(a.size() * 4), 1, 0);
  sprt_send(b.data(), int64_t(b.size() * 4), -1, 0);
  EXPECT_EQ(sprt_pending_sends(), before + 2);
  // Overwritten after the send: the peer still receives the sent values.
  std::fill(a.begin(), a.end(), 0.0f);
  sprt_recv(inA.data(), int64_t(inA.size() * 4), -1, 0);
  sprt_recv(inB.data(), int64_t(inB.size() * 4), 1, 0);
  sprt_complete_sends();
  EXPECT_EQ(sprt_pending_sends(), 0);
  // The peer on the pipeline axis (2 stages: +1 and -1 are the same rank).
  const int64_t peer =
      me + (sprt_axis_coord(0) == 0 ? 1 : -1) * (worldSize() / 2);
  for (size_t i = 0; i < inA.size(); ++i)
    ASSERT_EQ(inA[i], float(peer * 1000 + int64_t(i))) << i;
  for (size_t i = 0; i < inB.size(); ++i)
    ASSERT_EQ(inB[i], float(-peer * 1000 - int64_t(i))) << i;
  // Again: the staging buffers are reused.
  for (int round = 0; round < 3; ++round) {
    float x = float(me + round), y = -1.0f;
    sprt_send(&x, 4, 1, 0);
    sprt_recv(&y, 4, 1, 0);
    EXPECT_EQ(y, float(peer + round));
  }
  sprt_complete_sends();
}

/// The shared path of this job's files (rank 0's pid).
std::string sharedPath(const char *what) {
  int pid = int(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return "/tmp/sprt-pipeline-" + std::to_string(pid) + "-" + what +
         ".safetensors";
}

// A dump on rank 0 (stage 0) of parameters held by stage 1 only ("w",
// "d") and of the tied "t", whose stage-1 copy differs here: every value
// comes from the owner stage's copy. Loading it back keeps each held
// parameter's shard and leaves the others alone.
TEST(Pipeline, DumpShardedReadsTheOwnerStagesCopy) {
  pipelineMesh();
  sprt::Model m = parsed(pipelineJson());
  m.selectStage();
  const int64_t stage = sprt_axis_coord(0), d = sprt_axis_coord(1);
  const int64_t dp = worldSize() / 2;
  std::vector<std::vector<float>> values(3);
  std::vector<const float *> local;
  for (size_t i = 0; i < 3; ++i) {
    const sprt::ParamInfo &p = m.params[i];
    if (!p.held()) {
      local.push_back(nullptr);
      continue;
    }
    for (int64_t e = 0; e < p.localElements(); ++e)
      values[i].push_back(i == 0 && stage == 1
                              ? -99.0f
                              : float(100 * int64_t(i) + p.globalIndex(e)));
    local.push_back(values[i].data());
  }
  EXPECT_EQ(local[1] == nullptr, stage == 0);
  std::string path = sharedPath("dump"), error;
  ASSERT_TRUE(
      sprt::Params::dumpSharded(m, sprt::allParams(m), "", local, path, error))
      << error;
  if (sprt_world_rank() == 0) {
    std::map<std::string, sprt::TensorInfo> tensors;
    ASSERT_TRUE(sprt::readCheckpointIndex(path, tensors, error)) << error;
    const char *names[] = {"t", "w", "d"};
    for (int i = 0; i < 3; ++i) {
      std::vector<char> bytes;
      ASSERT_TRUE(sprt::readTensorData(tensors.at(names[i]), bytes, error));
      ASSERT_EQ(bytes.size(), 8 * sizeof(float));
      for (int e = 0; e < 8; ++e) {
        float x;
        std::memcpy(&x, bytes.data() + e * 4, 4);
        EXPECT_EQ(x, float(100 * i + e)) << names[i] << " element " << e;
      }
    }
  }
  // Load: each held parameter's shard, the others untouched (null).
  std::vector<std::vector<float>> back(3);
  std::vector<float *> into;
  for (size_t i = 0; i < 3; ++i) {
    back[i].assign(size_t(m.params[i].localElements()), 0.0f);
    into.push_back(m.params[i].held() ? back[i].data() : nullptr);
  }
  ASSERT_TRUE(
      sprt::Params::loadSharded(m, sprt::allParams(m), "", into, path, error))
      << error;
  for (size_t i = 0; i < 3; ++i) {
    if (!into[i])
      continue;
    for (int64_t e = 0; e < m.params[i].localElements(); ++e)
      EXPECT_EQ(back[i][size_t(e)],
                float(100 * int64_t(i) + m.params[i].globalIndex(e)))
          << m.params[i].name << " on stage " << stage << " data rank " << d
          << " of " << dp;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (sprt_world_rank() == 0)
    std::remove(path.c_str());
}

// Every pipeline stage of a data-parallel replica gets the same batch: the
// batcher splits it over the data axis only.
TEST(Pipeline, EveryStageOfAReplicaGetsTheSameBatch) {
  pipelineMesh();
  sprt::Model m = parsed(pipelineJson());
  m.selectStage();
  sprt::Batcher batcher(m, 7);
  batcher.build(3);
  const int64_t n = batcher.localTokens();
  const int64_t dp = worldSize() / 2;
  ASSERT_EQ(n, m.seq * m.batch / dp);
  std::vector<int64_t> all(size_t(n * worldSize())),
      mine(batcher.localIds(), batcher.localIds() + n);
  MPI_Allgather(mine.data(), int(n), MPI_INT64_T, all.data(), int(n),
                MPI_INT64_T, MPI_COMM_WORLD);
  // World rank r has coordinates (r / dp, r % dp).
  for (int64_t r = 0; r < worldSize(); ++r) {
    const int64_t *theirs = all.data() + r * n;
    bool same = std::equal(mine.begin(), mine.end(), theirs);
    if (r % dp == sprt_axis_coord(1))
      EXPECT_TRUE(same) << "rank " << r;
    else
      EXPECT_FALSE(same) << "rank " << r;
  }
}
} // namespace

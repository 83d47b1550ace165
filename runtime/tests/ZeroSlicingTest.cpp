//===- ZeroSlicingTest.cpp - ZeRO-1 over two axes (under mpirun) ----------===//
//
// A distributed optimizer over a data axis and a context axis slices each
// gradient (and its parameter's optimizer state) over both, nested: the
// model JSON's "grad_shard_axes" entry lists the axes outermost first, the
// runtime's Slicing gives this rank's slice, and dumps and loads of sliced
// tensors (checkpoints, --dump-grads, master weights) assemble and split
// whole tensors. Mesh ["dp" = world / 2, "cp" = 2].
//
//===----------------------------------------------------------------------===//

#include "../driver/Model.h"
#include "../driver/Params.h"
#include "../driver/SafeTensors.h"
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

/// ["dp" = world / 2, "cp" = 2]; false (skip) for an odd world.
bool twoAxisMesh() {
  if (worldSize() % 2 != 0)
    return false;
  const int64_t sizes[2] = {worldSize() / 2, 2};
  EXPECT_EQ(sprt_mesh_init(2, sizes), 0);
  return true;
}

/// Three replicated [4 x world, 2] parameters: "a" sliced over dp then cp,
/// "b" over dp alone, "c" not sliced.
json zeroJson(json shardAxes) {
  int64_t rows = 4 * worldSize();
  json params = json::array();
  for (const char *name : {"a", "b", "c"})
    params.push_back({{"name", name},
                      {"shape", {rows, 2}},
                      {"local_shape", {rows, 2}},
                      {"init", "normal"},
                      {"std", 0.02},
                      {"splits", json::array()}});
  return {{"format_version", 3},
          {"eval_step", false},
          {"mesh", {{"axes", {"dp", "cp"}}, {"sizes", {worldSize() / 2, 2}}}},
          {"seq", 4},
          {"batch", 2},
          {"vocab", 50},
          {"arena_bytes", 4096},
          {"flops_per_step", 0},
          {"recompute_flops_per_step", 0},
          {"workspace_bytes", 0},
          {"batch_axis", 0},
          {"seq_axis", -1},
          {"params", params},
          {"scalars", 2},
          {"grads", {0, 1, 2}},
          {"grad_shard_axes", shardAxes},
          {"optimizer", "adamw"},
          {"planned",
           {{"parameters", 0},
            {"optimizer_state", 0},
            {"tokens", 0},
            {"arena", 4096},
            {"peak_bytes", 4096}}}};
}

std::string sharedPath(const char *what) {
  int pid = int(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return "/tmp/sprt-zero-" + std::to_string(pid) + "-" + what + ".safetensors";
}
} // namespace

TEST(ZeroSlicing, ModelParsesNestedShardAxes) {
  if (!twoAxisMesh())
    GTEST_SKIP() << "needs an even number of ranks";
  sprt::Model m;
  std::string error;
  ASSERT_TRUE(m.parse(zeroJson({{0, 1}, 0, -1}).dump().c_str(), error))
      << error;
  EXPECT_EQ(m.stateSlicing(0).axes, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(m.stateSlicing(1).axes, std::vector<int64_t>({0}));
  EXPECT_FALSE(m.stateSlicing(2).sliced());
  int64_t d = sprt_axis_coord(0), c = sprt_axis_coord(1);
  // Nested: the data axis outermost, the context axis within its block.
  EXPECT_EQ(m.stateSlicing(0).count(), worldSize());
  EXPECT_EQ(m.stateSlicing(0).index(), d * 2 + c);
  EXPECT_EQ(m.stateSlicing(1).count(), worldSize() / 2);
  EXPECT_EQ(m.stateSlicing(1).index(), d);
  EXPECT_EQ(m.stateSlicing(2).count(), 1);
  EXPECT_EQ(m.stateSlicing(2).index(), 0);
  // Every rank of the two axes owns its slice of "a"; of "b" the cp rank 0
  // of each dp rank; of "c" rank 0 only.
  EXPECT_TRUE(m.params[0].ownsShard(m.stateSlicing(0)));
  EXPECT_EQ(m.params[1].ownsShard(m.stateSlicing(1)), c == 0);
  EXPECT_EQ(m.params[2].ownsShard(m.stateSlicing(2)), d == 0 && c == 0);

  // An axis the mesh does not have, or one listed twice, is refused naming
  // the gradient.
  for (json bad : {json{{0, 2}, 0, -1}, json{{1, 1}, 0, -1}, json{0, 5, -1}}) {
    sprt::Model wrong;
    EXPECT_FALSE(wrong.parse(zeroJson(bad).dump().c_str(), error));
    EXPECT_NE(error.find("slices gradient #"), std::string::npos) << error;
  }
}

// Each rank holds only its slice of each tensor (a's D x C-th, b's D-th, c
// whole): the dump is the whole tensors, and a load gives each rank its
// slice back, whatever the slicing.
TEST(ZeroSlicing, DumpAndLoadAssembleWholeTensors) {
  if (!twoAxisMesh())
    GTEST_SKIP() << "needs an even number of ranks";
  sprt::Model m;
  std::string error;
  ASSERT_TRUE(m.parse(zeroJson({{0, 1}, 0, -1}).dump().c_str(), error))
      << error;
  std::vector<sprt::Slicing> slicings;
  std::vector<std::vector<float>> values(3);
  std::vector<const float *> local;
  for (int64_t i = 0; i < 3; ++i) {
    sprt::Slicing s = m.stateSlicing(i);
    int64_t n = m.params[size_t(i)].localElements() / s.count();
    for (int64_t e = 0; e < n; ++e)
      values[size_t(i)].push_back(float(1000 * i + s.index() * n + e));
    local.push_back(values[size_t(i)].data());
    slicings.push_back(s);
  }
  std::string path = sharedPath("dump");
  ASSERT_TRUE(sprt::Params::dumpSharded(m, sprt::allParams(m), ".exp_avg",
                                        local, path, error, slicings))
      << error;
  if (sprt_world_rank() == 0) {
    std::map<std::string, sprt::TensorInfo> tensors;
    ASSERT_TRUE(sprt::readCheckpointIndex(path, tensors, error)) << error;
    for (int i = 0; i < 3; ++i) {
      std::string name = std::string(1, char('a' + i)) + ".exp_avg";
      std::vector<char> bytes;
      ASSERT_TRUE(sprt::readTensorData(tensors.at(name), bytes, error));
      ASSERT_EQ(bytes.size(), size_t(8 * worldSize()) * sizeof(float));
      for (int64_t e = 0; e < 8 * worldSize(); ++e) {
        float x;
        std::memcpy(&x, bytes.data() + e * 4, 4);
        EXPECT_EQ(x, float(1000 * i + e)) << name << " element " << e;
      }
    }
  }
  std::vector<std::vector<float>> back(3);
  std::vector<float *> into;
  for (size_t i = 0; i < 3; ++i) {
    back[i].assign(values[i].size(), -1.0f);
    into.push_back(back[i].data());
  }
  ASSERT_TRUE(sprt::Params::loadSharded(m, sprt::allParams(m), ".exp_avg", into,
                                        path, error, slicings))
      << error;
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(back[i], values[i]) << "tensor " << i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (sprt_world_rank() == 0)
    std::remove(path.c_str());
}

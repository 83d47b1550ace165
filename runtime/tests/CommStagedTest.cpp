//===- CommStagedTest.cpp - MPI through host staging ----------------------===//
//
// makeMpiComm(..., staged = true) copies every device buffer to host memory,
// runs MPI there and copies results back: what --comm mpi does for GPU
// ranks. On CPU ranks both Comms run; each operation, in place or not, must
// give the unstaged one's bytes exactly, and leave the rest of its output
// alone. Also World::useComm's choices on this (MPI-only) library.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "MpiWorld.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <random>
#include <vector>

using namespace sprt;

namespace {

std::vector<float> randomData(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

struct Comms {
  std::unique_ptr<Comm> direct, staged;
  Comms() {
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    direct = makeMpiComm(a, 0, false);
    staged = makeMpiComm(b, 0, true);
  }
};

bool sameBytes(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(CommStaged, EveryOperationGivesTheDirectBytes) {
  Comms c;
  const int n = c.direct->size(), r = c.direct->rank();
  const int64_t count = 37;
  const std::vector<float> in = randomData(size_t(n * count), 11 + r);
  auto both = [&](auto op, std::vector<float> outInit) {
    std::vector<float> a = outInit, b = outInit;
    op(*c.direct, a);
    op(*c.staged, b);
    return std::make_pair(a, b);
  };
  const std::vector<float> sentinel(size_t(n * count) + 8, -7.0f);

  auto gather = both(
      [&](Comm &comm, std::vector<float> &out) {
        comm.allGather(in.data(), out.data(), count * 4);
      },
      sentinel);
  EXPECT_TRUE(sameBytes(gather.first, gather.second)) << "all_gather";

  auto gatherInPlace = both(
      [&](Comm &comm, std::vector<float> &out) {
        std::memcpy(out.data() + r * count, in.data(), count * 4);
        comm.allGather(out.data() + r * count, out.data(), count * 4);
      },
      sentinel);
  EXPECT_TRUE(sameBytes(gatherInPlace.first, gatherInPlace.second))
      << "all_gather in place";

  auto scatter = both(
      [&](Comm &comm, std::vector<float> &out) {
        comm.reduceScatter(in.data(), out.data(), count, ElemType::F32);
      },
      sentinel);
  EXPECT_TRUE(sameBytes(scatter.first, scatter.second)) << "reduce_scatter";

  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
    auto reduce = both(
        [&](Comm &comm, std::vector<float> &out) {
          comm.allReduce(in.data(), out.data(), count, op, ElemType::F32);
        },
        sentinel);
    EXPECT_TRUE(sameBytes(reduce.first, reduce.second)) << "all_reduce";
  }
  auto reduceInPlace = both(
      [&](Comm &comm, std::vector<float> &out) {
        std::memcpy(out.data(), in.data(), count * 4);
        comm.allReduce(out.data(), out.data(), count, ReduceOp::Sum,
                       ElemType::F32);
      },
      sentinel);
  EXPECT_TRUE(sameBytes(reduceInPlace.first, reduceInPlace.second))
      << "all_reduce in place";
  auto reduceBf16 = both(
      [&](Comm &comm, std::vector<float> &out) {
        // 2 * count bf16 values: the bits of `in`.
        comm.allReduce(in.data(), out.data(), 2 * count, ReduceOp::Sum,
                       ElemType::Bf16);
      },
      sentinel);
  EXPECT_TRUE(sameBytes(reduceBf16.first, reduceBf16.second))
      << "bf16 all_reduce";

  auto toAll = both(
      [&](Comm &comm, std::vector<float> &out) {
        comm.allToAll(in.data(), out.data(), count * 4);
      },
      sentinel);
  EXPECT_TRUE(sameBytes(toAll.first, toAll.second)) << "all_to_all";

  // A ring of point-to-point transfers, started together.
  auto ring = both(
      [&](Comm &comm, std::vector<float> &out) {
        CommHandle recv =
            comm.startRecv(out.data(), count * 4, (r + n - 1) % n);
        CommHandle send = comm.startSend(in.data(), count * 4, (r + 1) % n);
        send->wait();
        recv->wait();
      },
      sentinel);
  EXPECT_TRUE(sameBytes(ring.first, ring.second)) << "send / recv";
  // The staged results are real ones, not the sentinel.
  EXPECT_NE(ring.second[0], -7.0f);
  EXPECT_EQ(ring.second.back(), -7.0f);
}

TEST(CommStaged, UseCommChoosesAndRefuses) {
  EXPECT_EQ(World::useComm("mpi-staged"), "");
  EXPECT_STREQ(World::name(), "mpi-staged");
  EXPECT_EQ(World::useComm(""), "");
  EXPECT_STREQ(World::name(), "mpi");
  EXPECT_NE(World::useComm("nccl").find("not linked with NCCL"),
            std::string::npos);
  EXPECT_NE(World::useComm("gloo").find("unknown 'gloo'"), std::string::npos);
  EXPECT_STREQ(World::name(), "mpi");
}

} // namespace

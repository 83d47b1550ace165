//===- NcclEmuTest.cpp - the emulator's NCCL, under mpirun ----------------===//
//
// What NcclComm.cpp relies on the emulator's NCCL for (runtime/cuda-emu/lib/
// Nccl.cpp), on every rank of an mpirun of any size: reductions sum the
// ranks in rank order (bf16 rounded at each addition), reduce-scatter and
// all-gather place each rank's block, in place too, a group's sends and
// receives are posted together, a captured collective runs on each replay
// and not before, and what NCCL refuses is refused. The DISABLED_ tests end
// the job, as the emulator does for calls NCCL would hang on: ctest runs
// each on its own and matches its message.
//
//===----------------------------------------------------------------------===//

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

int worldRank = 0, worldSize = 1;

/// One communicator of every rank, as NcclComm creates it.
struct Comm {
  ncclComm_t comm = nullptr;
  Comm() {
    ncclUniqueId id;
    if (worldRank == 0)
      EXPECT_EQ(ncclGetUniqueId(&id), ncclSuccess);
    MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, MPI_COMM_WORLD);
    EXPECT_EQ(ncclCommInitRank(&comm, worldSize, id, worldRank), ncclSuccess);
  }
  ~Comm() { ncclCommDestroy(comm); }
};

template <typename T> struct Device {
  T *p = nullptr;
  size_t n;
  explicit Device(const std::vector<T> &h) : n(h.size()) {
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  explicit Device(size_t n) : Device(std::vector<T>(n)) {}
  ~Device() { cudaFree(p); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
  }
};

TEST(NcclEmu, AllReduceCombinesTheRanksInRankOrder) {
  Comm c;
  const int n = worldSize;
  Device<float> x(
      std::vector<float>{float(worldRank + 1), float(-worldRank), 1.0f}),
      sum(3), mx(3);
  ASSERT_EQ(ncclAllReduce(x.p, sum.p, 3, ncclFloat32, ncclSum, c.comm, nullptr),
            ncclSuccess);
  ASSERT_EQ(ncclAllReduce(x.p, mx.p, 3, ncclFloat32, ncclMax, c.comm, nullptr),
            ncclSuccess);
  EXPECT_EQ(sum.get(), (std::vector<float>{float(n * (n + 1) / 2),
                                           -float(n * (n - 1) / 2), float(n)}));
  EXPECT_EQ(mx.get(), (std::vector<float>{float(n), 0.0f, 1.0f}));
  // bf16 rounds at each addition: 256 + 1 is a tie, 256 (even), and so on
  // (summed first, three ranks would give 258).
  std::vector<__nv_bfloat16> v(1, __float2bfloat16(worldRank == 0 ? 256 : 1));
  Device<__nv_bfloat16> b(v);
  ASSERT_EQ(ncclAllReduce(b.p, b.p, 1, ncclBfloat16, ncclSum, c.comm, nullptr),
            ncclSuccess);
  EXPECT_EQ(__bfloat162float(b.get()[0]), 256.0f);
}

TEST(NcclEmu, ReduceScatterAndAllGatherPlaceEachRanksBlock) {
  Comm c;
  const int n = worldSize;
  std::vector<float> in(size_t(2 * n));
  for (int i = 0; i < 2 * n; ++i)
    in[size_t(i)] = float(100 * worldRank + i);
  Device<float> x(in), block(2), all(size_t(2 * n));
  ASSERT_EQ(
      ncclReduceScatter(x.p, block.p, 2, ncclFloat32, ncclSum, c.comm, nullptr),
      ncclSuccess);
  const float ranks = float(100 * n * (n - 1) / 2);
  EXPECT_EQ(block.get(), (std::vector<float>{ranks + n * 2 * worldRank,
                                             ranks + n * (2 * worldRank + 1)}));
  // In place: each rank's block already at its offset of the output.
  std::vector<float> mine(size_t(2 * n), -1.0f);
  mine[size_t(2 * worldRank)] = float(worldRank);
  mine[size_t(2 * worldRank + 1)] = float(10 * worldRank);
  Device<float> inPlace(mine);
  ASSERT_EQ(ncclAllGather(inPlace.p + 2 * worldRank, inPlace.p, 2, ncclFloat32,
                          c.comm, nullptr),
            ncclSuccess);
  std::vector<float> want;
  for (int r = 0; r < n; ++r)
    want.insert(want.end(), {float(r), float(10 * r)});
  EXPECT_EQ(inPlace.get(), want);
}

TEST(NcclEmu, AGroupPostsItsSendsAndReceivesTogether) {
  Comm c;
  const int next = (worldRank + 1) % worldSize,
            prev = (worldRank + worldSize - 1) % worldSize;
  Device<int32_t> out(std::vector<int32_t>{worldRank, 7 * worldRank}), in(2);
  // Every rank receives first: without the group, each would wait for a
  // send queued behind its own receive.
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  ASSERT_EQ(ncclRecv(in.p, 2, ncclInt32, prev, c.comm, nullptr), ncclSuccess);
  ASSERT_EQ(ncclSend(out.p, 2, ncclInt32, next, c.comm, nullptr), ncclSuccess);
  ASSERT_EQ(ncclGroupEnd(), ncclSuccess);
  EXPECT_EQ(in.get(), (std::vector<int32_t>{prev, 7 * prev}));
}

TEST(NcclEmu, ACapturedCollectiveRunsOnEachReplay) {
  Comm c;
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), 0);
  Device<float> x(std::vector<float>{1.0f});
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), 0);
  ASSERT_EQ(ncclAllReduce(x.p, x.p, 1, ncclFloat32, ncclSum, c.comm, s),
            ncclSuccess);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), 0);
  EXPECT_EQ(x.get()[0], 1.0f) << "captured, not run";
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), 0);
  ASSERT_EQ(cudaGraphLaunch(exec, s), 0);
  ASSERT_EQ(cudaGraphLaunch(exec, s), 0);
  EXPECT_EQ(x.get()[0], float(worldSize * worldSize));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

TEST(NcclEmu, WhatNcclRefusesIsRefused) {
  Comm c;
  std::vector<float> host(4);
  Device<float> d(4);
  EXPECT_EQ(
      ncclAllReduce(host.data(), d.p, 4, ncclFloat32, ncclSum, c.comm, nullptr),
      ncclInvalidArgument);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("not device memory"),
            std::string::npos);
  EXPECT_EQ(ncclSend(d.p, 4, ncclFloat32, worldSize, c.comm, nullptr),
            ncclInvalidArgument);
  ncclResult_t async = ncclInternalError;
  EXPECT_EQ(ncclCommGetAsyncError(c.comm, &async), ncclSuccess);
  EXPECT_EQ(async, ncclSuccess);
}

// Ranks that disagree: NCCL would hang, the emulator ends the job.
TEST(NcclEmu, DISABLED_CollectivesThatDifferEndTheJob) {
  Comm c;
  Device<float> x(8);
  ncclAllReduce(x.p, x.p, worldRank == 0 ? 4 : 8, ncclFloat32, ncclSum, c.comm,
                nullptr);
  ADD_FAILURE() << "the job went on";
}

TEST(NcclEmu, DISABLED_ARecvSmallerThanItsSendEndsTheJob) {
  Comm c;
  Device<float> x(8);
  ncclGroupStart();
  if (worldRank == 0)
    ncclSend(x.p, 8, ncclFloat32, 1, c.comm, nullptr);
  if (worldRank == 1)
    ncclRecv(x.p, 4, ncclFloat32, 0, c.comm, nullptr);
  ncclGroupEnd();
  ADD_FAILURE() << "the job went on";
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  ::testing::InitGoogleTest(&argc, argv);
  if (worldRank != 0) { // one rank's report
    ::testing::TestEventListeners &l =
        ::testing::UnitTest::GetInstance()->listeners();
    delete l.Release(l.default_result_printer());
  }
  int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}

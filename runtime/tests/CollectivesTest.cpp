//===- CollectivesTest.cpp - collectives under mpirun ---------------------===//
//
// Run with 2 and 4 ranks (ctest does both). Every rank fills its tensor with
// values that encode (rank, index), so the expected result of each
// collective can be computed locally and compared exactly.
//
//===----------------------------------------------------------------------===//

#include "../core/Workspace.h"
#include "CollectiveTestUtil.h"

#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <mpi.h>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
using sprt_test::GuardedWorkspace;
using sprt_test::invalidArgument;
using sprt_test::lineMesh;
using sprt_test::worldSize;

float value(int64_t rank, int64_t index) { return float(rank * 1000 + index); }

/// The sum over the ranks s of value(base + s, index), added in rank order.
float summed(int64_t base, int64_t index) {
  float sum = 0;
  for (int64_t s = 0; s < worldSize(); ++s)
    sum += value(base + s, index);
  return sum;
}

/// [d0, d1, d2] filled with value(rank, flat index).
std::vector<float> filled(int64_t rank, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = value(rank, i);
  return v;
}

int64_t flat(int64_t i, int64_t j, int64_t k, int64_t d1, int64_t d2) {
  return (i * d1 + j) * d2 + k;
}
} // namespace

TEST(Collectives, MeshCoordinatesPutTheLastAxisInnermost) {
  int n = worldSize();
  if (n % 2 != 0)
    GTEST_SKIP() << "needs an even number of ranks";
  int64_t sizes[2] = {n / 2, 2};
  ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
  int64_t r = sprt_world_rank();
  EXPECT_EQ(sprt_axis_coord(0), r / 2);
  EXPECT_EQ(sprt_axis_coord(1), r % 2);
  // A sum over the inner axis adds the two adjacent ranks only.
  float x = float(r), y = 0;
  sprt_all_reduce_f32(&x, &y, 1, SPRT_SUM, 1);
  EXPECT_EQ(y, float((r / 2) * 4 + 1));
}

TEST(Collectives, AllGatherAlongEachDimension) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t d[3] = {3, 2, 4};
  for (int32_t dim = 0; dim < 3; ++dim) {
    std::vector<float> in = filled(r, d[0] * d[1] * d[2]);
    int64_t g[3] = {d[0], d[1], d[2]};
    g[dim] *= n;
    std::vector<float> out(in.size() * size_t(n), -1.0f);
    sprt_reset_bytes_sent();
    // Dimensions after the first are strided: received into the
    // workspace (out's bytes), then unpacked.
    std::vector<char> workspace(dim == 0 ? 0 : out.size() * 4);
    sprt_all_gather(in.data(), out.data(), 4, 3, d[0], d[1], d[2], 1, dim, 0, 0,
                    workspace.data(), int64_t(workspace.size()));
    EXPECT_EQ(sprt_bytes_sent(0), int64_t(in.size()) * 4 * (n - 1));
    for (int64_t i = 0; i < g[0]; ++i)
      for (int64_t j = 0; j < g[1]; ++j)
        for (int64_t k = 0; k < g[2]; ++k) {
          int64_t idx[3] = {i, j, k};
          int64_t src = idx[dim] / d[dim];
          idx[dim] %= d[dim];
          EXPECT_EQ(out[size_t(flat(i, j, k, g[1], g[2]))],
                    value(src, flat(idx[0], idx[1], idx[2], d[1], d[2])))
              << "dim " << dim;
        }
  }
}

TEST(Collectives, ReduceScatterAlongEachDimension) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  for (int32_t dim = 0; dim < 3; ++dim) {
    int64_t g[3] = {2, 3, 2};
    g[dim] *= n;
    int64_t total = g[0] * g[1] * g[2];
    std::vector<float> in = filled(r, total);
    int64_t l[3] = {g[0], g[1], g[2]};
    l[dim] /= n;
    std::vector<float> out(size_t(total / n), -1.0f);
    std::vector<char> workspace(dim == 0 ? 0 : in.size() * 4);
    sprt_reduce_scatter_f32(in.data(), out.data(), 3, g[0], g[1], g[2], 1, dim,
                            0, 0, workspace.data(), int64_t(workspace.size()));
    for (int64_t i = 0; i < l[0]; ++i)
      for (int64_t j = 0; j < l[1]; ++j)
        for (int64_t k = 0; k < l[2]; ++k) {
          int64_t idx[3] = {i, j, k};
          idx[dim] += r * l[dim];
          float want = summed(0, flat(idx[0], idx[1], idx[2], g[1], g[2]));
          EXPECT_EQ(out[size_t(flat(i, j, k, l[1], l[2]))], want)
              << "dim " << dim;
        }
  }
}

TEST(Collectives, AllReduceKinds) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  float x[2] = {float(r), float(-r)}, y[2];
  sprt_all_reduce_f32(x, y, 2, SPRT_SUM, 0);
  EXPECT_EQ(y[0], float(n * (n - 1) / 2));
  sprt_all_reduce_f32(x, y, 2, SPRT_MAX, 0);
  EXPECT_EQ(y[0], float(n - 1));
  EXPECT_EQ(y[1], 0.0f);
  sprt_all_reduce_f32(x, y, 2, SPRT_MIN, 0);
  EXPECT_EQ(y[1], float(-(n - 1)));
  sprt_all_reduce_f32(x, y, 2, SPRT_MEAN, 0);
  EXPECT_FLOAT_EQ(y[0], float(n - 1) / 2.0f);
  // In place.
  sprt_all_reduce_f32(x, x, 2, SPRT_SUM, 0);
  EXPECT_EQ(x[0], float(n * (n - 1) / 2));
}

TEST(Collectives, LocalSliceKeepsThisRanksBlock) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  int64_t g[3] = {2, 2 * n, 3};
  std::vector<float> in = filled(7, g[0] * g[1] * g[2]);
  std::vector<float> out(in.size() / size_t(n));
  sprt_reset_bytes_sent();
  sprt_local_slice(in.data(), out.data(), 4, 3, g[0], g[1], g[2], 1, 1, 0, 0);
  EXPECT_EQ(sprt_bytes_sent(0), 0);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(out[size_t(flat(i, j, k, 2, 3))],
                  value(7, flat(i, r * 2 + j, k, g[1], g[2])));
}

TEST(Collectives, AllToAllMovesSplitToConcat) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // Local [2, 1, 2n] split along dim 2, concatenated along dim 0:
  // the result is [2n, 1, 2]; block s of dim 0 comes from rank s.
  int64_t d0 = 2, d2 = 2 * n;
  std::vector<float> in = filled(r, d0 * d2), out(in.size(), -1.0f);
  // Split along a strided dimension (packed), concatenated along the first
  // (received in place): one tensor's bytes of workspace.
  std::vector<char> workspace(in.size() * 4);
  sprt_all_to_all(in.data(), out.data(), 4, 3, d0, 1, d2, 1, 2, 0, 0,
                  workspace.data(), int64_t(workspace.size()));
  for (int64_t i = 0; i < d0 * n; ++i)
    for (int64_t k = 0; k < 2; ++k) {
      int64_t src = i / d0, li = i % d0, lk = r * 2 + k;
      EXPECT_EQ(out[size_t(i * 2 + k)], value(src, li * d2 + lk));
    }
}

TEST(Collectives, SendRecvAroundTheRing) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  float x = float(r), y = -1;
  if (r % 2 == 0) {
    sprt_send(&x, 4, 1, 0);
    sprt_recv(&y, 4, -1, 0);
  } else {
    sprt_recv(&y, 4, -1, 0);
    sprt_send(&x, 4, 1, 0);
  }
  EXPECT_EQ(y, float((r - 1 + n) % n));
}

TEST(Collectives, NonBlockingFormsMatchBlocking) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  std::vector<float> in = filled(r, 2 * 3), a(in.size() * size_t(n)),
                     b(a.size());
  std::vector<char> workspace(a.size() * 4);
  sprt_all_gather(in.data(), a.data(), 4, 2, 2, 3, 1, 1, 1, 0, 0,
                  workspace.data(), int64_t(workspace.size()));
  int64_t h =
      sprt_all_gather_start(in.data(), b.data(), 4, 2, 2, 3, 1, 1, 1, 0,
                            workspace.data(), int64_t(workspace.size()));
  sprt_wait(h);
  EXPECT_EQ(a, b);
  float x = float(r + 1), y = 0;
  h = sprt_all_reduce_start_f32(&x, &y, 1, SPRT_MEAN, 0);
  sprt_wait(h);
  EXPECT_FLOAT_EQ(y, float(n + 1) / 2.0f);
}

TEST(Collectives, OperationsInFlightKeepTheirOwnWorkspaces) {
  // Gathers along dimension 1 unpack from their workspace when waited for:
  // three in flight at once (waited out of order), with a blocking
  // all-to-all (a workspace of its own) between, each give the blocking
  // result.
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  std::vector<std::vector<float>> in, want, got;
  std::vector<std::vector<char>> workspaces;
  std::vector<int64_t> handles;
  for (int64_t k = 0; k < 3; ++k) {
    in.push_back(filled(r + 10 * k, 2 * (3 + k)));
    want.emplace_back(in.back().size() * size_t(n), -1.0f);
    got.emplace_back(want.back().size(), -2.0f);
    workspaces.emplace_back(want.back().size() * 4);
    sprt_all_gather(in[k].data(), want[k].data(), 4, 2, 2, 3 + k, 1, 1, 1, 0, 0,
                    workspaces[k].data(), int64_t(workspaces[k].size()));
  }
  for (int64_t k = 0; k < 3; ++k)
    handles.push_back(sprt_all_gather_start(
        in[k].data(), got[k].data(), 4, 2, 2, 3 + k, 1, 1, 1, 0,
        workspaces[k].data(), int64_t(workspaces[k].size())));
  std::vector<float> a = filled(r, 2 * n * 3), b(a.size()), c(a.size());
  // [2n, 3] split along 0 (contiguous), concatenated along 1 (strided):
  // the received blocks are unpacked from the workspace.
  std::vector<char> exchange(a.size() * 4);
  sprt_all_to_all(a.data(), b.data(), 4, 2, 2 * n, 3, 1, 1, 0, 1, 0,
                  exchange.data(), int64_t(exchange.size()));
  sprt_wait(handles[1]);
  sprt_wait(handles[2]);
  sprt_wait(handles[0]);
  for (int64_t k = 0; k < 3; ++k)
    EXPECT_EQ(got[size_t(k)], want[size_t(k)]) << k;
  sprt_all_to_all(a.data(), c.data(), 4, 2, 2 * n, 3, 1, 1, 0, 1, 0,
                  exchange.data(), int64_t(exchange.size()));
  EXPECT_EQ(b, c);
}

TEST(Collectives, CoalescedAllReduceMatchesOneByOne) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  std::vector<float> a = filled(r, 3), b = filled(r + 10, 5), ra(3), rb(5);
  const void *ins[2] = {a.data(), b.data()};
  void *outs[2] = {ra.data(), rb.data()};
  int64_t sizes[2] = {3, 5};
  sprt_reset_bytes_sent();
  std::vector<float> bucket(8);
  sprt_all_reduce_coalesced(2, ins, outs, sizes, SPRT_DTYPE_F32, SPRT_SUM, 0,
                            bucket.data(), 8 * 4);
  EXPECT_EQ(sprt_bytes_sent(0), 2 * (8 * 4 / n) * (n - 1));
  for (int64_t i = 0; i < 3; ++i) {
    float want = summed(0, i);
    EXPECT_EQ(ra[size_t(i)], want);
  }
  for (int64_t i = 0; i < 5; ++i) {
    float want = summed(10, i);
    EXPECT_EQ(rb[size_t(i)], want);
  }
}

TEST(Collectives, CoalescedReduceScatterKeepsEachTensorsBlock) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // Two tensors of 2n and 3n rows (one element each): rank r keeps rows
  // [2r, 2r + 2) of the first and [3r, 3r + 3) of the second, summed.
  std::vector<float> a = filled(r, 2 * n), b = filled(r + 7, 3 * n), ra(2),
                     rb(3);
  const void *ins[2] = {a.data(), b.data()};
  void *outs[2] = {ra.data(), rb.data()};
  int64_t sizes[2] = {2 * n, 3 * n};
  // Both tensors' blocks packed (5n), then this rank's reduced blocks (5).
  std::vector<float> bucket(size_t(5 * n + 5));
  sprt_reduce_scatter_coalesced(2, ins, outs, sizes, SPRT_DTYPE_F32, 0,
                                bucket.data(), int64_t(bucket.size()) * 4);
  for (int64_t i = 0; i < 2; ++i) {
    float want = summed(0, 2 * r + i);
    EXPECT_EQ(ra[size_t(i)], want);
  }
  for (int64_t i = 0; i < 3; ++i) {
    float want = summed(7, 3 * r + i);
    EXPECT_EQ(rb[size_t(i)], want);
  }
}

// The async forms (sp-overlap-grad-reductions): the operands are packed at
// the start, so overwriting them before the wait changes nothing; the
// results are written by the wait, not before; the bytes are the blocking
// form's.
TEST(Collectives, CoalescedAllReduceStartPacksAndWaitWrites) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  std::vector<float> a = filled(r, 3), b = filled(r + 10, 5), ra(3, -1.0f),
                     rb(5, -1.0f);
  const void *ins[2] = {a.data(), b.data()};
  void *outs[2] = {ra.data(), rb.data()};
  int64_t sizes[2] = {3, 5};
  sprt_reset_bytes_sent();
  // One operand packs too: its workspace is its bytes.
  std::vector<float> bucket(8), single(3), rs(3, -1.0f);
  int64_t h = sprt_all_reduce_coalesced_start(
      2, ins, outs, sizes, SPRT_DTYPE_F32, SPRT_SUM, 0, bucket.data(), 8 * 4);
  const void *one[1] = {a.data()};
  void *oneOut[1] = {rs.data()};
  int64_t h1 = sprt_all_reduce_coalesced_start(
      1, one, oneOut, sizes, SPRT_DTYPE_F32, SPRT_SUM, 0, single.data(), 3 * 4);
  EXPECT_EQ(sprt_bytes_sent(0),
            2 * (8 * 4 / n) * (n - 1) + 2 * (3 * 4 / n) * (n - 1));
  std::fill(a.begin(), a.end(), 1e9f);
  std::fill(b.begin(), b.end(), 1e9f);
  EXPECT_EQ(ra[0], -1.0f);
  sprt_wait(h1);
  sprt_wait(h);
  for (int64_t i = 0; i < 3; ++i) {
    float want = summed(0, i);
    EXPECT_EQ(ra[size_t(i)], want);
    EXPECT_EQ(rs[size_t(i)], want);
  }
  for (int64_t i = 0; i < 5; ++i) {
    float want = summed(10, i);
    EXPECT_EQ(rb[size_t(i)], want);
  }
  std::string error = invalidArgument([&] {
    sprt_all_reduce_coalesced_start(2, ins, outs, sizes, SPRT_DTYPE_F32,
                                    SPRT_MAX, 0, bucket.data(), 8 * 4);
  });
  EXPECT_NE(error.find("reduces by a sum only"), std::string::npos) << error;
}

TEST(Collectives, CoalescedReduceScatterStartPacksAndWaitWrites) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  std::vector<float> a = filled(r, 2 * n), b = filled(r + 7, 3 * n), ra(2),
                     rb(3);
  const void *ins[2] = {a.data(), b.data()};
  void *outs[2] = {ra.data(), rb.data()};
  int64_t sizes[2] = {2 * n, 3 * n};
  std::vector<float> bucket(size_t(5 * n + 5));
  int64_t h = sprt_reduce_scatter_coalesced_start(
      2, ins, outs, sizes, SPRT_DTYPE_F32, 0, bucket.data(),
      int64_t(bucket.size()) * 4);
  std::fill(a.begin(), a.end(), 1e9f);
  std::fill(b.begin(), b.end(), 1e9f);
  sprt_wait(h);
  for (int64_t i = 0; i < 2; ++i) {
    float want = summed(0, 2 * r + i);
    EXPECT_EQ(ra[size_t(i)], want);
  }
  for (int64_t i = 0; i < 3; ++i) {
    float want = summed(7, 3 * r + i);
    EXPECT_EQ(rb[size_t(i)], want);
  }
}

TEST(Collectives, AllGatherParamFillsInEveryRanksSlice) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // Each rank has updated only its slice of 4 rows x 2 columns.
  std::vector<float> p(size_t(4 * n * 2), -1.0f);
  for (int64_t i = 0; i < 8; ++i)
    p[size_t(8 * r + i)] = value(r, i);
  sprt_all_gather_param(p.data(), 8 * n, 4, 0, -1);
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(p[size_t(8 * s + i)], value(s, i));
}

TEST(Collectives, AllGatherParamWithinGathersTheNestedSlices) {
  // ZeRO-1 over two axes (a data axis outer, a context axis inner): the
  // rank at (d, c) updated slice d * C + c of 4 rows x 2 columns each; the
  // inner axis is gathered within the block of d, then the blocks.
  int n = worldSize();
  if (n % 2 != 0)
    GTEST_SKIP() << "needs an even number of ranks";
  int64_t sizes[2] = {n / 2, 2};
  ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
  int64_t C = 2, d = sprt_axis_coord(0), c = sprt_axis_coord(1);
  int64_t slice = d * C + c;
  std::vector<float> p(size_t(8 * n), -1.0f);
  for (int64_t i = 0; i < 8; ++i)
    p[size_t(8 * slice + i)] = value(slice, i);
  sprt_reset_bytes_sent();
  sprt_all_gather_param(p.data(), 8 * C, 4, 1, 0);
  // This rank's block of the data axis is whole, the others untouched.
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(p[size_t(8 * s + i)], s / C == d ? value(s, i) : -1.0f)
          << "slice " << s << " element " << i << " after the inner gather";
  EXPECT_EQ(sprt_bytes_sent(1), 8 * 4 * (C - 1));
  sprt_all_gather_param(p.data(), 8 * n, 4, 0, -1);
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(p[size_t(8 * s + i)], value(s, i));
  // Together the bytes of one all-gather over the D x C ranks.
  EXPECT_EQ(sprt_bytes_sent(0) + sprt_bytes_sent(1), 8 * 4 * (n - 1));
}

TEST(Collectives, AllGatherLinearMatchesGatherThenLinear) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5, N = 3; // [s/t = 4, b = 2, K] per rank
  std::vector<float> x(rows * K), w(N * K), bias(N);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float((r * 37 + int64_t(i) * 11) % 17) / 8.0f - 1.0f;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float((int64_t(i) * 7) % 13) / 6.0f - 1.0f;
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = float(i) - 1.0f;
  for (int32_t inOut : {0, 1}) {
    // Reference: gather everything, then one GEMM.
    std::vector<float> gathered(x.size() * size_t(n)), want(rows * n * N);
    sprt_reset_bytes_sent();
    sprt_all_gather(x.data(), gathered.data(), 4, 3, 4, 2, K, 1, 0, 0, 0,
                    nullptr, 0);
    int64_t unfusedBytes = sprt_bytes_sent(0);
    sprt_linear_f32(gathered.data(), w.data(), bias.data(), want.data(),
                    rows * n, K, N, inOut);
    for (int64_t chunks : {1, 2, 4, 8}) {
      // min(chunks, 2) chunks of every rank's rows: the whole gathered
      // input with one chunk, 2 / chunks of it otherwise.
      int64_t need = std::min<int64_t>(chunks, 2) * n * (rows / chunks) * K * 4;
      EXPECT_EQ(need, int64_t(gathered.size()) * 4 *
                          std::min<int64_t>(chunks, 2) / chunks);
      GuardedWorkspace workspace(need);
      std::vector<float> got(want.size(), -7.0f);
      sprt_reset_bytes_sent();
      sprt::resetWorkspaceUse();
      sprt_all_gather_linear_f32(x.data(), w.data(), bias.data(), got.data(),
                                 rows, K, N, inOut, chunks, 0, workspace.get(),
                                 need);
      EXPECT_EQ(sprt_bytes_sent(0), unfusedBytes) << "chunks " << chunks;
      EXPECT_TRUE(workspace.guardIntact()) << "chunks " << chunks;
      EXPECT_EQ(sprt::workspaceUse().byOp["all_gather_matmul"], need);
      EXPECT_EQ(sprt::workspaceUse().most, need);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::abs(want[i])))
            << "element " << i << ", chunks " << chunks << ", in_out " << inOut;
    }
  }
  EXPECT_THROW(sprt_all_gather_linear_f32(x.data(), w.data(), nullptr, x.data(),
                                          rows, K, N, 0, 3, 0, nullptr, 0),
               std::invalid_argument);
}

TEST(Collectives, AllGatherLinearRejectsATooSmallWorkspace) {
  lineMesh();
  int64_t n = worldSize();
  const int64_t rows = 8, K = 5, N = 3;
  std::vector<float> x(rows * K, 1.0f), w(N * K, 1.0f), y(rows * n * N);
  // Four chunks: two of them, n * 2 rows of K.
  int64_t need = 2 * n * 2 * K * 4;
  std::vector<char> workspace(static_cast<size_t>(need));
  std::string error = invalidArgument([&] {
    sprt_all_gather_linear_f32(x.data(), w.data(), nullptr, y.data(), rows, K,
                               N, 0, 4, 0, workspace.data(), need - 4);
  });
  EXPECT_EQ(error, "sprt: dist.all_gather_matmul (sprt_all_gather_linear_f32) "
                   "needs a workspace of " +
                       std::to_string(need) + " bytes, was given " +
                       std::to_string(need - 4) + " bytes");
  error = invalidArgument([&] {
    sprt_all_gather_linear_f32(x.data(), w.data(), nullptr, y.data(), rows, K,
                               N, 0, 4, 0, nullptr, need);
  });
  EXPECT_NE(error.find("was given none (a null pointer)"), std::string::npos)
      << error;
}

TEST(Collectives, LinearReduceScatterMatchesLinearThenReduceScatter) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t rows = 8, K = 5, N = 3; // this rank's block of the output
  std::vector<float> x(n * rows * K), w(N * K), bias(N);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float((r * 41 + int64_t(i) * 13) % 19) / 9.0f - 1.0f;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float((int64_t(i) * 5) % 11) / 5.0f - 1.0f;
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = 0.5f * float(i) - 0.25f;
  for (int32_t inOut : {0, 1}) {
    // Reference: one GEMM over every row, reduce-scatter, then the bias.
    std::vector<float> partial(n * rows * N), want(rows * N);
    sprt_linear_f32(x.data(), w.data(), nullptr, partial.data(), n * rows, K, N,
                    inOut);
    sprt_reset_bytes_sent();
    sprt_reduce_scatter_f32(partial.data(), want.data(), 2, n * rows, N, 1, 1,
                            0, 0, 0, nullptr, 0);
    int64_t unfusedBytes = sprt_bytes_sent(0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < N; ++j)
        want[size_t(i * N + j)] += bias[size_t(j)];
    for (int64_t chunks : {1, 2, 4, 8}) {
      // min(chunks, 2) chunks of partial sums of every rank's block.
      int64_t need = std::min<int64_t>(chunks, 2) * n * (rows / chunks) * N * 4;
      EXPECT_EQ(need, int64_t(partial.size()) * 4 *
                          std::min<int64_t>(chunks, 2) / chunks);
      GuardedWorkspace workspace(need);
      std::vector<float> got(want.size(), -7.0f);
      sprt_reset_bytes_sent();
      sprt::resetWorkspaceUse();
      sprt_linear_reduce_scatter_f32(x.data(), w.data(), bias.data(),
                                     got.data(), rows, K, N, inOut, chunks, 0,
                                     workspace.get(), need);
      EXPECT_EQ(sprt_bytes_sent(0), unfusedBytes) << "chunks " << chunks;
      EXPECT_TRUE(workspace.guardIntact()) << "chunks " << chunks;
      EXPECT_EQ(sprt::workspaceUse().byOp["matmul_reduce_scatter"], need);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::abs(want[i])))
            << "element " << i << ", chunks " << chunks << ", in_out " << inOut;
    }
  }
  EXPECT_THROW(sprt_linear_reduce_scatter_f32(x.data(), w.data(), nullptr,
                                              x.data(), rows, K, N, 0, 3, 0,
                                              nullptr, 0),
               std::invalid_argument);
}

TEST(Collectives, LinearReduceScatterRejectsATooSmallWorkspace) {
  lineMesh();
  int64_t n = worldSize();
  const int64_t rows = 8, K = 5, N = 3;
  std::vector<float> x(n * rows * K, 1.0f), w(N * K, 1.0f), y(rows * N);
  // One chunk: the partial sums of every rank's whole block.
  int64_t need = n * rows * N * 4;
  std::vector<char> workspace(static_cast<size_t>(need));
  std::string error = invalidArgument([&] {
    sprt_linear_reduce_scatter_f32(x.data(), w.data(), nullptr, y.data(), rows,
                                   K, N, 0, 1, 0, workspace.data(), 0);
  });
  EXPECT_EQ(error,
            "sprt: dist.matmul_reduce_scatter (sprt_linear_reduce_scatter_f32) "
            "needs a workspace of " +
                std::to_string(need) + " bytes, was given 0 bytes");
}

TEST(Collectives, StridedAndCoalescedCollectivesCheckTheirWorkspace) {
  lineMesh();
  int64_t n = worldSize(), r = sprt_world_rank();
  // A gather along dimension 1 of [2, 3] needs out's bytes; along the
  // first dimension none.
  std::vector<float> in = filled(r, 6), out(6 * size_t(n));
  std::string error = invalidArgument([&] {
    sprt_all_gather(in.data(), out.data(), 4, 2, 2, 3, 1, 1, 1, 0, 0,
                    out.data(), int64_t(out.size()) * 4 - 1);
  });
  EXPECT_EQ(error, "sprt: dist.all_gather (sprt_all_gather) needs a workspace "
                   "of " +
                       std::to_string(out.size() * 4) + " bytes, was given " +
                       std::to_string(out.size() * 4 - 1) + " bytes");
  sprt::resetWorkspaceUse();
  sprt_all_gather(in.data(), out.data(), 4, 2, 2, 3, 1, 1, 0, 0, 0, nullptr, 0);
  EXPECT_EQ(sprt::workspaceUse().most, 0);
  // A reduce-scatter along dimension 1 of [2, 2n] packs the operand.
  std::vector<float> full = filled(r, 4 * n), mine(4);
  error = invalidArgument([&] {
    sprt_reduce_scatter_f32(full.data(), mine.data(), 2, 2, 2 * n, 1, 1, 1, 0,
                            0, nullptr, 0);
  });
  EXPECT_NE(error.find("dist.reduce_scatter (sprt_reduce_scatter_f32) needs a "
                       "workspace of " +
                       std::to_string(16 * n) + " bytes"),
            std::string::npos)
      << error;
  // Coalesced: one bucket of every tensor; a single tensor needs none.
  std::vector<float> a = filled(r, 2 * n), b = filled(r, n), ra(2 * n), rb(n);
  const void *ins[2] = {a.data(), b.data()};
  void *outs[2] = {ra.data(), rb.data()};
  int64_t sizes[2] = {2 * n, n};
  error = invalidArgument([&] {
    sprt_all_reduce_coalesced(2, ins, outs, sizes, SPRT_DTYPE_F32, SPRT_SUM, 0,
                              nullptr, 0);
  });
  EXPECT_NE(error.find("dist.all_reduce_coalesced"), std::string::npos)
      << error;
  error = invalidArgument([&] {
    sprt_reduce_scatter_coalesced(2, ins, outs, sizes, SPRT_DTYPE_F32, 0,
                                  a.data(), 3 * n * 4);
  });
  EXPECT_NE(error.find("needs a workspace of " + std::to_string(12 * n + 12) +
                       " bytes, was given " + std::to_string(12 * n)),
            std::string::npos)
      << error;
  sprt::resetWorkspaceUse();
  sprt_all_reduce_coalesced(1, ins, outs, sizes, SPRT_DTYPE_F32, SPRT_SUM, 0,
                            nullptr, 0);
  sprt_reduce_scatter_coalesced(1, ins, outs, sizes, SPRT_DTYPE_F32, 0, nullptr,
                                0);
  EXPECT_EQ(sprt::workspaceUse().most, 0);
  // The single tensor's reduced block of rows [2r, 2r + 2).
  for (int64_t i = 0; i < 2; ++i) {
    float want = summed(0, 2 * r + i);
    EXPECT_EQ(ra[size_t(i)], want) << i;
  }
}

TEST(Collectives, WrongWorldSizeIsAnError) {
  int64_t n = worldSize() + 1;
  EXPECT_EQ(sprt_mesh_init(1, &n), -1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 reports; every rank runs every test.
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int rc = RUN_ALL_TESTS();
  // Every rank's failures count.
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  sprt_mesh_finalize();
  MPI_Finalize();
  return worst;
}

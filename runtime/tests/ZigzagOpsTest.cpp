//===- ZigzagOpsTest.cpp - context-parallel collectives and ops (mpirun) --===//
//
// Run with 2 and 4 ranks. A sequence dimension of global length L split in
// zigzag over n ranks: rank r holds chunks r and 2n - 1 - r of 2n. The
// reference owner of each global row is computed from that definition here
// (zigzagRow); the collectives move values that encode (rank, index), so
// they are compared exactly. The layout-aware ops are compared with the
// one-rank run of the same call: position ids and dropout exactly;
// attention's out and dq rows, and dk, dv summed over the ranks, within the
// bounds of AttentionPiecesConformanceTest.cpp. The data loader gives each
// rank the tokens of its zigzag rows.
//
//===----------------------------------------------------------------------===//

#include "../core/Workspace.h"
#include "../driver/Batch.h"
#include "CollectiveTestUtil.h"
#include "KernelTestUtil.h"

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <unistd.h>

namespace {
using sprt_test::GuardedWorkspace;
using sprt_test::invalidArgument;
using sprt_test::lineMesh;
using sprt_test::worldSize;

float value(int64_t rank, int64_t index) { return float(rank * 1000 + index); }

/// The global row of local row `i` of rank r's zigzag part (2c rows).
int64_t zigzagRow(int64_t i, int64_t c, int64_t n, int64_t r) {
  return i < c ? r * c + i : (2 * n - 1 - r) * c + (i - c);
}

int64_t flat(int64_t i, int64_t j, int64_t k, int64_t d1, int64_t d2) {
  return (i * d1 + j) * d2 + k;
}

TEST(Zigzag, AllGatherAlongEachDimension) {
  lineMesh();
  const int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t d[3] = {4, 2, 6}; // local part: even along every dimension
  for (int32_t dim = 0; dim < 3; ++dim) {
    const int64_t c = d[dim] / 2;
    std::vector<float> in(size_t(d[0] * d[1] * d[2]));
    for (size_t e = 0; e < in.size(); ++e)
      in[e] = value(r, int64_t(e));
    int64_t g[3] = {d[0], d[1], d[2]};
    g[dim] *= n;
    std::vector<float> out(in.size() * size_t(n), -1.0f);
    // The workspace is out's bytes, whatever the dimension.
    GuardedWorkspace ws(int64_t(out.size()) * 4);
    sprt_reset_bytes_sent();
    sprt_all_gather(in.data(), out.data(), 4, 3, d[0], d[1], d[2], 1, dim, 0, 1,
                    ws.get(), ws.bytes);
    EXPECT_TRUE(ws.guardIntact());
    EXPECT_EQ(sprt_bytes_sent(0), int64_t(in.size()) * 4 * (n - 1));
    // Every global row: its owner and its row in the owner's part.
    for (int64_t s = 0; s < n; ++s)
      for (int64_t i = 0; i < 2 * c; ++i) {
        int64_t gRow = zigzagRow(i, c, n, s);
        for (int64_t a = 0; a < (dim == 0 ? 1 : g[0]); ++a)
          for (int64_t b = 0; b < (dim == 1 ? 1 : g[1]); ++b)
            for (int64_t e = 0; e < (dim == 2 ? 1 : g[2]); ++e) {
              int64_t gi[3] = {a, b, e}, li[3] = {a, b, e};
              gi[dim] = gRow;
              li[dim] = i;
              EXPECT_EQ(out[size_t(flat(gi[0], gi[1], gi[2], g[1], g[2]))],
                        value(s, flat(li[0], li[1], li[2], d[1], d[2])))
                  << "dim " << dim;
            }
      }
  }
  // Zigzag needs the workspace even along the first dimension.
  std::vector<float> in(8), out(8 * size_t(n));
  std::string error = invalidArgument([&] {
    sprt_all_gather(in.data(), out.data(), 4, 1, 8, 1, 1, 1, 0, 0, 1, nullptr,
                    0);
  });
  EXPECT_NE(error.find("needs a workspace of " + std::to_string(32 * n)),
            std::string::npos)
      << error;
}

TEST(Zigzag, ReduceScatterAndLocalSliceGiveThePart) {
  lineMesh();
  const int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t c = 3, g[3] = {2, 2 * c * n, 5}; // split dimension 1
  const int64_t total = g[0] * g[1] * g[2];
  std::vector<float> in(static_cast<size_t>(total));
  for (int64_t e = 0; e < total; ++e)
    in[size_t(e)] = value(r, e);
  std::vector<float> sum(size_t(total / n), -1.0f), part(sum.size(), -1.0f);
  GuardedWorkspace ws(total * 4);
  sprt_reduce_scatter_f32(in.data(), sum.data(), 3, g[0], g[1], g[2], 1, 1, 0,
                          1, ws.get(), ws.bytes);
  EXPECT_TRUE(ws.guardIntact());
  sprt_reset_bytes_sent();
  sprt_local_slice(in.data(), part.data(), 4, 3, g[0], g[1], g[2], 1, 1, 0, 1);
  EXPECT_EQ(sprt_bytes_sent(0), 0);
  for (int64_t a = 0; a < g[0]; ++a)
    for (int64_t i = 0; i < 2 * c; ++i)
      for (int64_t e = 0; e < g[2]; ++e) {
        int64_t src = flat(a, zigzagRow(i, c, n, r), e, g[1], g[2]);
        float want = 0.0f;
        for (int64_t s = 0; s < n; ++s)
          want += value(s, src);
        size_t at = size_t(flat(a, i, e, 2 * c, g[2]));
        EXPECT_EQ(sum[at], want);
        EXPECT_EQ(part[at], value(r, src));
      }
  // Round trip: the parts of one tensor, gathered, are the tensor again.
  std::vector<float> same(static_cast<size_t>(total)), mine(part.size()),
      back(same.size(), -1.0f);
  for (int64_t e = 0; e < total; ++e)
    same[size_t(e)] = value(0, e);
  sprt_local_slice(same.data(), mine.data(), 4, 3, g[0], g[1], g[2], 1, 1, 0,
                   1);
  std::vector<char> gws(size_t(total) * 4);
  sprt_all_gather(mine.data(), back.data(), 4, 3, g[0], 2 * c, g[2], 1, 1, 0, 1,
                  gws.data(), int64_t(gws.size()));
  EXPECT_EQ(back, same);
}

TEST(Zigzag, PositionIdsAndDropoutMatchTheOneRankRun) {
  // Zigzag over axis 0 (n / 2 or 1 ranks), contiguous over axis 1 inside it.
  const int64_t n = worldSize();
  const int64_t sizes[2] = {n / 2, 2};
  ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
  const int64_t cp = sizes[0], cpCoord = sprt_axis_coord(0),
                t = sprt_axis_coord(1);
  const int64_t L = 8 * cp, B = 3, H = 4, local = L / (cp * 2);
  std::vector<int64_t> pos(size_t(local * B));
  sprt_op_position_ids(pos.data(), local, B, 1, 0);
  std::vector<float> x = sprt_test::randomNormals(size_t(L * B * H), 7);
  std::vector<float> full(x.size());
  sprt_set_seed(99);
  sprt_op_dropout(x.data(), full.data(), 3, L, B, H, -1, -1, -1, -1, 0.3, 4);
  std::vector<float> mine(size_t(local * B * H)), got(mine.size());
  const int64_t c = L / (2 * cp);
  for (int64_t i = 0; i < local; ++i) {
    int64_t gRow = zigzagRow(t * local + i, c, cp, cpCoord);
    for (int64_t b = 0; b < B; ++b)
      EXPECT_EQ(pos[size_t(i * B + b)], gRow) << "row " << i;
    std::copy_n(x.begin() + gRow * B * H, B * H, mine.begin() + i * B * H);
  }
  sprt_op_dropout(mine.data(), got.data(), 3, local, B, H, 1, -1, -1, 0, 0.3,
                  4);
  for (int64_t i = 0; i < local; ++i) {
    int64_t gRow = zigzagRow(t * local + i, c, cp, cpCoord);
    for (int64_t e = 0; e < B * H; ++e)
      EXPECT_EQ(got[size_t(i * B * H + e)], full[size_t(gRow * B * H + e)])
          << "row " << i;
  }
}

double maxAbs(const std::vector<float> &v) {
  double m = 0.0;
  for (float x : v)
    m = std::max(m, double(std::fabs(x)));
  return m;
}

TEST(Zigzag, AttentionOnTheZigzagPartMatchesTheOneRankRun) {
  lineMesh();
  const int64_t n = worldSize(), r = sprt_world_rank();
  const int64_t L = 12 * n, B = 2, heads = 4, kvHeads = 2, D = 8;
  const int64_t rotary = 8, S = L / n, c = L / (2 * n);
  const int64_t rowQ = B * heads * D;
  std::vector<float> q = sprt_test::randomNormals(size_t(L * rowQ), 1),
                     k = sprt_test::randomNormals(size_t(L * B * kvHeads * D),
                                                  2),
                     v = sprt_test::randomNormals(k.size(), 3),
                     dout = sprt_test::randomNormals(q.size(), 4);
  std::vector<int64_t> pos(size_t(L * B));
  for (size_t i = 0; i < pos.size(); ++i)
    pos[i] = int64_t((i * 7) % 50);
  sprt_set_seed(3);
  for (const int64_t *positions :
       {(const int64_t *)nullptr, (const int64_t *)pos.data()})
    for (double rate : {0.0, 0.2}) {
      const uint64_t key = sprt_dropout_key();
      std::vector<float> out(q.size()), dq(q.size()), dk(k.size()),
          dv(k.size());
      sprt_attention_f32(q.data(), k.data(), v.data(), positions, out.data(), L,
                         L, 0, B, heads, kvHeads, D, 1, 0, rotary, 10000.0,
                         rate, key, 5, B, 0, heads, 0);
      sprt_attention_grad_f32(dout.data(), q.data(), k.data(), v.data(),
                              positions, dq.data(), dk.data(), dv.data(), L, L,
                              0, B, heads, kvHeads, D, 1, 0, rotary, 10000.0,
                              rate, key, 5, B, 0, heads, 0, 0);
      // This rank's zigzag part of q and dout.
      std::vector<float> ql(size_t(S * rowQ)), dol(ql.size());
      for (int64_t i = 0; i < S; ++i) {
        int64_t gRow = zigzagRow(i, c, n, r);
        std::copy_n(q.begin() + gRow * rowQ, rowQ, ql.begin() + i * rowQ);
        std::copy_n(dout.begin() + gRow * rowQ, rowQ, dol.begin() + i * rowQ);
      }
      std::vector<float> outl(ql.size()), dql(ql.size()), dkl(k.size(), NAN),
          dvl(k.size(), NAN);
      const sprt_attention_args args{
          S, B, heads, kvHeads, D, rotary, 10000.0, rate, 5, 1, 0, -1, -1, 0};
      sprt_op_attention(ql.data(), k.data(), v.data(), positions, outl.data(),
                        &args);
      sprt_op_attention_grad(dol.data(), ql.data(), k.data(), v.data(),
                             positions, dql.data(), dkl.data(), dvl.data(),
                             &args);
      std::vector<float> wantOut(ql.size()), wantDq(ql.size());
      for (int64_t i = 0; i < S; ++i) {
        int64_t gRow = zigzagRow(i, c, n, r);
        std::copy_n(out.begin() + gRow * rowQ, rowQ,
                    wantOut.begin() + i * rowQ);
        std::copy_n(dq.begin() + gRow * rowQ, rowQ, wantDq.begin() + i * rowQ);
      }
      const std::string what = std::string(positions ? "positions" : "index") +
                               " rate " + std::to_string(rate);
      sprt_test::expectClose(
          what + " out", outl,
          std::vector<double>(wantOut.begin(), wantOut.end()), 1e-5,
          1e-6 * maxAbs(out));
      sprt_test::expectClose(what + " dq", dql,
                             std::vector<double>(wantDq.begin(), wantDq.end()),
                             1e-5, 1e-6 * maxAbs(dq));
      // dk, dv: every rank's contribution, summed over the ranks.
      sprt_all_reduce_f32(dkl.data(), dkl.data(), int64_t(dkl.size()), SPRT_SUM,
                          0);
      sprt_all_reduce_f32(dvl.data(), dvl.data(), int64_t(dvl.size()), SPRT_SUM,
                          0);
      sprt_test::expectClose(what + " dk", dkl,
                             std::vector<double>(dk.begin(), dk.end()), 1e-5,
                             2e-6 * maxAbs(dk));
      sprt_test::expectClose(what + " dv", dvl,
                             std::vector<double>(dv.begin(), dv.end()), 1e-5,
                             2e-6 * maxAbs(dv));
    }
}

} // namespace

namespace {

TEST(Zigzag, BatcherGivesEachRankItsZigzagRows) {
  lineMesh();
  const int64_t n = worldSize(), r = sprt_world_rank();
  sprt::Model model;
  model.seq = 4 * n;
  model.batch = 3;
  model.vocab = 300;
  model.batchAxis = -1;
  model.seqAxis = 0;
  sprt::Batcher batcher(model, 11);
  batcher.build(2);
  const int64_t S = model.seq, B = model.batch, local = S / n, c = S / (2 * n);
  ASSERT_EQ(batcher.localTokens(), local * B);
  for (int64_t i = 0; i < local; ++i) {
    int64_t s = zigzagRow(i, c, n, r);
    for (int64_t b = 0; b < B; ++b) {
      EXPECT_EQ(batcher.localIds()[i * B + b], batcher.globalIds()[b * S + s]);
      EXPECT_EQ(batcher.localLabels()[i * B + b],
                batcher.globalLabels()[b * S + s]);
    }
  }
}

// --pack-documents: the loader cuts a text into paragraphs (blank lines
// separate them), lays them end to end and cuts sequences of S tokens; a
// plain reference of that here. Position ids restart at 0 at each
// document's start and at each sequence's start, the label of a document's
// last token is -100; sprt_op_position_ids then gives each rank the
// positions of its zigzag rows.
TEST(Zigzag, PackedDocumentsAndTheirPositionIds) {
  lineMesh();
  const int64_t n = worldSize(), r = sprt_world_rank();
  const std::string docs[] = {"ab\ncd\n", "efghijk\n", "l\n",
                              "mnopqrstuvwxyz0123\n", "4\n5\n"};
  std::string text = "\n  \n";
  for (const std::string &d : docs)
    text += d + "\n \t\n";
  char path[] = "/tmp/sprt-packed-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  close(fd);
  sprt::Model model;
  model.seq = 4 * n;
  model.batch = 2;
  model.vocab = 300;
  model.batchAxis = -1;
  model.seqAxis = 0;
  sprt::Batcher batcher(model, 11);
  std::string error;
  ASSERT_TRUE(batcher.loadText(path, /*packDocuments=*/true, error)) << error;
  unlink(path);
  ASSERT_TRUE(batcher.packing());
  // The reference stream: documents end to end, their last tokens marked.
  std::string stream;
  std::vector<bool> last;
  for (const std::string &d : docs) {
    stream += d;
    last.resize(stream.size(), false);
    last.back() = true;
  }
  const int64_t S = model.seq, B = model.batch, len = int64_t(stream.size());
  for (int64_t step : {1, 2}) {
    batcher.build(step);
    for (int64_t b = 0; b < B; ++b) {
      int64_t position = 0;
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = (((step - 1) * B + b) * S + s) % len;
        if (s == 0 || last[size_t((i + len - 1) % len)])
          position = 0;
        const int64_t at = b * S + s;
        EXPECT_EQ(batcher.globalIds()[at], int64_t(uint8_t(stream[size_t(i)])));
        EXPECT_EQ(batcher.globalLabels()[at],
                  last[size_t(i)] ? -100
                                  : int64_t(uint8_t(stream[(i + 1) % len])));
        EXPECT_EQ(batcher.globalPositions()[at], position)
            << "step " << step << " b " << b << " s " << s;
        ++position;
      }
    }
  }
  // This rank's zigzag rows of the step's positions.
  sprt_set_position_ids(batcher.globalPositions(), B, S, -1);
  const int64_t local = S / n, c = S / (2 * n);
  std::vector<int64_t> pos(size_t(local * B), -1);
  sprt_op_position_ids(pos.data(), local, B, -1, 0);
  for (int64_t i = 0; i < local; ++i)
    for (int64_t b = 0; b < B; ++b)
      EXPECT_EQ(pos[size_t(i * B + b)],
                batcher.globalPositions()[b * S + zigzagRow(i, c, n, r)]);
  sprt_set_position_ids(nullptr, 0, 0, -1);
  sprt_op_position_ids(pos.data(), local, B, -1, 0);
  for (int64_t i = 0; i < local; ++i)
    EXPECT_EQ(pos[size_t(i * B)], zigzagRow(i, c, n, r));
}

} // namespace

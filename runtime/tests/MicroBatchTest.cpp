//===- MicroBatchTest.cpp - micro-batches of a step (mpirun) --------------===//
//
// Run with 2 and 4 ranks on meshes [dp, cp] (every split of the world into
// a data-parallel and a context-parallel axis). A step of M micro-batches of
// a global batch Bg is compared with the one-micro-batch step over the
// whole batch of Bg x M sequences: micro-batch i must see global batch rows
// [i Bg, (i + 1) Bg). The data loader's global batch is that of a loader
// of batch Bg x M, and each micro-batch's part of this rank's tokens is
// taken here from it by the definition of the layout (batch rows over dp,
// zigzag rows over cp); dropout masks and the position ids of packed
// documents exactly, attention with dropout (its out and gradients) within
// the bounds of ZigzagOpsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "../core/MicroBatch.h"
#include "../driver/Batch.h"
#include "CollectiveTestUtil.h"
#include "KernelTestUtil.h"

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace {
using sprt_test::worldSize;

/// Every mesh [dp, cp] over the world.
std::vector<std::array<int64_t, 2>> meshes() {
  std::vector<std::array<int64_t, 2>> out;
  for (int64_t dp = 1; dp <= worldSize(); ++dp)
    if (worldSize() % dp == 0)
      out.push_back({dp, worldSize() / dp});
  return out;
}

/// The global row of local row `i` of rank r's zigzag part (2c rows) of a
/// split over n ranks.
int64_t zigzagRow(int64_t i, int64_t c, int64_t n, int64_t r) {
  return i < c ? r * c + i : (2 * n - 1 - r) * c + (i - c);
}

/// A text of paragraphs (documents) of different lengths in a temporary
/// file.
std::string documentsFile() {
  std::string text;
  for (int d = 0; d < 23; ++d)
    text += std::string(size_t(1 + (d * 7) % 11), char('a' + d)) + "\n\n";
  char path[] = "/tmp/sprt-microbatch-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  close(fd);
  return path;
}

sprt::Model model(int64_t seq, int64_t batch, int64_t microBatches) {
  sprt::Model m;
  m.seq = seq;
  m.batch = batch;
  m.microBatches = microBatches;
  m.vocab = 300;
  m.batchAxis = 0;
  m.seqAxis = 1;
  return m;
}

TEST(MicroBatch, SetStepStartsWithOneMicroBatch) {
  sprt_set_micro_batch(2, 4);
  EXPECT_EQ(sprt::microBatchIndex(), 2);
  EXPECT_EQ(sprt::microBatchCount(), 4);
  sprt_set_step(7);
  EXPECT_EQ(sprt::microBatchIndex(), 0);
  EXPECT_EQ(sprt::microBatchCount(), 1);
  EXPECT_EQ(sprt::microBatchProblem(3, 4), "");
  EXPECT_EQ(sprt::microBatchProblem(0, 1), "");
  for (auto [index, count] :
       {std::pair<int64_t, int64_t>{4, 4}, {-1, 2}, {0, 0}, {0, -3}})
    EXPECT_EQ(sprt::microBatchProblem(index, count),
              "sprt_set_micro_batch(" + std::to_string(index) + ", " +
                  std::to_string(count) +
                  "): the index must be in [0, count) and the count at "
                  "least 1");
  sprt_set_step(1);
}

// Random tokens, text windows and packed documents: the step's global batch
// is the batch of a loader of Bg x M sequences, and this rank's tokens are,
// for each micro-batch in turn, its batch rows and zigzag rows of that
// micro-batch's global rows.
TEST(MicroBatch, BatcherLaysOutEachMicroBatchAsTheWholeBatchsRows) {
  const std::string path = documentsFile();
  for (auto [dp, cp] : meshes()) {
    const int64_t sizes[2] = {dp, cp};
    ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
    const int64_t d = sprt_axis_coord(0), r = sprt_axis_coord(1);
    const int64_t M = 4, Bg = 2 * dp, S = 4 * cp, localB = Bg / dp,
                  localS = S / cp, c = S / (2 * cp);
    sprt::Model micro = model(S, Bg, M), whole = model(S, Bg * M, 1);
    for (int data = 0; data < 3; ++data) {
      sprt::Batcher a(micro, 5), b(whole, 5);
      std::string error;
      if (data) {
        ASSERT_TRUE(a.loadText(path, data == 2, error)) << error;
        ASSERT_TRUE(b.loadText(path, data == 2, error)) << error;
      }
      const std::string what = "dp " + std::to_string(dp) + " cp " +
                               std::to_string(cp) + " data " +
                               std::to_string(data);
      ASSERT_EQ(a.stepBatch(), Bg * M);
      ASSERT_EQ(a.localTokens(), M * localS * localB);
      for (int64_t step : {1, 3}) {
        a.build(step);
        b.build(step);
        const size_t n = size_t(Bg * M * S);
        EXPECT_TRUE(std::equal(a.globalIds(), a.globalIds() + n, b.globalIds()))
            << what;
        EXPECT_TRUE(std::equal(a.globalLabels(), a.globalLabels() + n,
                               b.globalLabels()))
            << what;
        EXPECT_TRUE(std::equal(a.globalPositions(), a.globalPositions() + n,
                               b.globalPositions()))
            << what;
        for (int64_t i = 0; i < M; ++i)
          for (int64_t s = 0; s < localS; ++s)
            for (int64_t j = 0; j < localB; ++j) {
              const int64_t at = (i * localS + s) * localB + j;
              const int64_t row = i * Bg + d * localB + j;
              const int64_t from = row * S + zigzagRow(s, c, cp, r);
              EXPECT_EQ(a.localIds()[at], b.globalIds()[from])
                  << what << " micro-batch " << i;
              EXPECT_EQ(a.localLabels()[at], b.globalLabels()[from])
                  << what << " micro-batch " << i;
            }
      }
    }
  }
  unlink(path.c_str());
}

// Micro-batch i's dropout of a local [S, B, H] tensor (sequence in zigzag
// over cp, batch over dp) draws the masks of its rows in the one-rank
// dropout of the whole step's [S, B x dp x M, H]; rank 2 is not batched.
TEST(MicroBatch, DropoutMatchesTheWholeBatchsRows) {
  for (auto [dp, cp] : meshes()) {
    const int64_t sizes[2] = {dp, cp};
    ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
    const int64_t d = sprt_axis_coord(0), r = sprt_axis_coord(1);
    const int64_t M = 3, L = 4 * cp, B = 2, H = 5, localS = L / cp,
                  c = L / (2 * cp), wholeB = B * dp * M;
    sprt_set_seed(17);
    sprt_set_step(2);
    std::vector<float> x = sprt_test::randomNormals(size_t(L * wholeB * H), 3);
    std::vector<float> full(x.size());
    sprt_op_dropout(x.data(), full.data(), 3, L, wholeB, H, -1, -1, -1, -1, 0.4,
                    6);
    for (int64_t i = 0; i < M; ++i) {
      std::vector<float> mine(size_t(localS * B * H)), got(mine.size());
      auto wholeAt = [&](int64_t s, int64_t j) {
        const int64_t row = i * B * dp + d * B + j;
        return size_t((zigzagRow(s, c, cp, r) * wholeB + row) * H);
      };
      for (int64_t s = 0; s < localS; ++s)
        for (int64_t j = 0; j < B; ++j)
          std::copy_n(x.begin() + long(wholeAt(s, j)), H,
                      mine.begin() + (s * B + j) * H);
      sprt_set_micro_batch(i, M);
      sprt_op_dropout(mine.data(), got.data(), 3, localS, B, H, -1, 0, -1, 1,
                      0.4, 6);
      for (int64_t s = 0; s < localS; ++s)
        for (int64_t j = 0; j < B; ++j)
          for (int64_t h = 0; h < H; ++h)
            EXPECT_EQ(got[size_t((s * B + j) * H + h)],
                      full[wholeAt(s, j) + size_t(h)])
                << "dp " << dp << " cp " << cp << " micro-batch " << i;
    }
    // Rank 2: the same masks in every micro-batch.
    std::vector<float> first(size_t(B * H)), later(first.size());
    sprt_set_micro_batch(0, M);
    sprt_op_dropout(x.data(), first.data(), 2, B, H, 1, -1, -1, -1, -1, 0.4, 6);
    sprt_set_micro_batch(M - 1, M);
    sprt_op_dropout(x.data(), later.data(), 2, B, H, 1, -1, -1, -1, -1, 0.4, 6);
    EXPECT_EQ(first, later);
    sprt_set_step(1);
  }
}

// Packed documents: sprt_set_position_ids gets the step's [Bg x M, S]
// positions; micro-batch i's position ids are those of its batch rows and
// zigzag rows.
TEST(MicroBatch, PositionIdsOfPackedDocumentsPerMicroBatch) {
  const std::string path = documentsFile();
  for (auto [dp, cp] : meshes()) {
    const int64_t sizes[2] = {dp, cp};
    ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
    const int64_t d = sprt_axis_coord(0), r = sprt_axis_coord(1);
    const int64_t M = 4, Bg = 2 * dp, S = 4 * cp, localB = Bg / dp,
                  localS = S / cp, c = S / (2 * cp);
    sprt::Model micro = model(S, Bg, M);
    sprt::Batcher batcher(micro, 5);
    std::string error;
    ASSERT_TRUE(batcher.loadText(path, true, error)) << error;
    batcher.build(2);
    const int64_t *global = batcher.globalPositions();
    // Some sequence of the step starts inside a document.
    EXPECT_TRUE(std::any_of(global, global + Bg * M * S,
                            [](int64_t p) { return p > 0; }));
    sprt_set_position_ids(global, batcher.stepBatch(), S, 0);
    for (int64_t i = 0; i < M; ++i) {
      sprt_set_micro_batch(i, M);
      std::vector<int64_t> pos(size_t(localS * localB), -1);
      sprt_op_position_ids(pos.data(), localS, localB, -1, 1);
      for (int64_t s = 0; s < localS; ++s)
        for (int64_t j = 0; j < localB; ++j)
          EXPECT_EQ(
              pos[size_t(s * localB + j)],
              global[(i * Bg + d * localB + j) * S + zigzagRow(s, c, cp, r)])
              << "dp " << dp << " cp " << cp << " micro-batch " << i;
    }
    sprt_set_position_ids(nullptr, 0, 0, -1);
    sprt_set_step(1);
  }
  unlink(path.c_str());
}

double maxAbs(const std::vector<float> &v) {
  double m = 0.0;
  for (float x : v)
    m = std::max(m, double(std::fabs(x)));
  return m;
}

/// Columns [b0, b0 + B) of the batch dimension of a [S, wholeB, row]
/// tensor.
std::vector<float> batchColumns(const std::vector<float> &t, int64_t S,
                                int64_t wholeB, int64_t row, int64_t b0,
                                int64_t B) {
  std::vector<float> out(size_t(S * B * row));
  for (int64_t s = 0; s < S; ++s)
    std::copy_n(t.begin() + (s * wholeB + b0) * row, B * row,
                out.begin() + s * B * row);
  return out;
}

// Attention with dropout on micro-batch i's local batch rows (batch over
// the world) equals those rows of the one-rank attention over the whole
// step's batch, forward and backward.
TEST(MicroBatch, AttentionDropoutMatchesTheWholeBatchsRows) {
  const int64_t n = worldSize();
  ASSERT_EQ(sprt_mesh_init(1, &n), 0);
  const int64_t rank = sprt_axis_coord(0);
  const int64_t M = 2, S = 6, B = 2, heads = 2, kvHeads = 1, D = 4,
                wholeB = B * n * M;
  const int64_t rowQ = heads * D, rowK = kvHeads * D;
  std::vector<float> q = sprt_test::randomNormals(size_t(S * wholeB * rowQ), 1),
                     k = sprt_test::randomNormals(size_t(S * wholeB * rowK), 2),
                     v = sprt_test::randomNormals(k.size(), 3),
                     dout = sprt_test::randomNormals(q.size(), 4);
  sprt_set_seed(3);
  sprt_set_step(4);
  const double rate = 0.3;
  const uint64_t key = sprt_dropout_key();
  std::vector<float> out(q.size()), dq(q.size()), dk(k.size()), dv(k.size());
  sprt_attention_f32(q.data(), k.data(), v.data(), nullptr, out.data(), S, S, 0,
                     wholeB, heads, kvHeads, D, 1, 0, 0, 10000.0, rate, key, 5,
                     wholeB, 0, heads, 0);
  sprt_attention_grad_f32(dout.data(), q.data(), k.data(), v.data(), nullptr,
                          dq.data(), dk.data(), dv.data(), S, S, 0, wholeB,
                          heads, kvHeads, D, 1, 0, 0, 10000.0, rate, key, 5,
                          wholeB, 0, heads, 0, 0);
  for (int64_t i = 0; i < M; ++i) {
    const int64_t b0 = i * B * n + rank * B;
    auto part = [&](const std::vector<float> &t, int64_t row) {
      return batchColumns(t, S, wholeB, row, b0, B);
    };
    std::vector<float> ql = part(q, rowQ), kl = part(k, rowK),
                       vl = part(v, rowK), dol = part(dout, rowQ);
    std::vector<float> outl(ql.size()), dql(ql.size()), dkl(kl.size()),
        dvl(kl.size());
    sprt_set_micro_batch(i, M);
    const sprt_attention_args args{S,    B, heads, kvHeads, D, 0,  10000.0,
                                   rate, 5, 1,     0,       0, -1, -1};
    sprt_op_attention(ql.data(), kl.data(), vl.data(), nullptr, outl.data(),
                      &args);
    sprt_op_attention_grad(dol.data(), ql.data(), kl.data(), vl.data(), nullptr,
                           dql.data(), dkl.data(), dvl.data(), &args);
    const std::string what = "micro-batch " + std::to_string(i);
    auto expectRows = [&](const std::string &name,
                          const std::vector<float> &got,
                          const std::vector<float> &whole, int64_t row) {
      std::vector<float> want = part(whole, row);
      sprt_test::expectClose(what + " " + name, got,
                             std::vector<double>(want.begin(), want.end()),
                             1e-5, 1e-6 * maxAbs(whole));
    };
    expectRows("out", outl, out, rowQ);
    expectRows("dq", dql, dq, rowQ);
    expectRows("dk", dkl, dk, rowK);
    expectRows("dv", dvl, dv, rowK);
  }
  // Without the micro-batch the masks differ: the test sees them.
  sprt_set_micro_batch(0, 1);
  std::vector<float> ql = batchColumns(q, S, wholeB, rowQ, B * n + rank * B, B),
                     kl = batchColumns(k, S, wholeB, rowK, B * n + rank * B, B),
                     vl = batchColumns(v, S, wholeB, rowK, B * n + rank * B, B);
  std::vector<float> outl(ql.size());
  const sprt_attention_args args{S,    B, heads, kvHeads, D, 0,  10000.0,
                                 rate, 5, 1,     0,       0, -1, -1};
  sprt_op_attention(ql.data(), kl.data(), vl.data(), nullptr, outl.data(),
                    &args);
  EXPECT_NE(outl, batchColumns(out, S, wholeB, rowQ, B * n + rank * B, B));
  sprt_set_step(1);
}

} // namespace

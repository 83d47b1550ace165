//===- TokenBatchTest.cpp - batches of tokenized data (mpirun) ------------===//
//
// Run with 2 and 4 ranks on meshes [dp, cp]. The data loader's global batch
// of a tokenized dataset against plain references: shuffled windows (row b
// of step t is window j = perm_epoch[k mod N] of S + 1 tokens, k = (t - 1) B
// + b, over epochs), and packed documents ended by the EOS id (tokens
// [k S, k S + S) of the stream, positions restarting after each EOS and at
// each sequence's start, the label of an EOS -100). The global batch is the
// same on every rank (each rank's part of it is MicroBatchTest's).
//
//===----------------------------------------------------------------------===//

#include "../driver/Batch.h"
#include "CollectiveTestUtil.h"

#include "sprt/runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// Documents of 1..17 random tokens in [1, 300) each ended by EOS 0, in a
/// tokenized dataset (uint16) in /tmp.
std::string tokensFile(std::vector<int64_t> &tokens) {
  uint64_t x = 12345;
  auto next = [&]() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t(x >> 33);
  };
  int64_t docs = 0;
  tokens.clear();
  while (tokens.size() < 400) {
    int64_t len = 1 + next() % 17;
    for (int64_t i = 0; i < len; ++i)
      tokens.push_back(1 + next() % 299);
    tokens.push_back(0);
    ++docs;
  }
  char path[] = "/tmp/sprt-token-batch-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  {
    std::ofstream out(path, std::ios::binary);
    for (int64_t t : tokens) {
      uint16_t v = uint16_t(t);
      out.write(reinterpret_cast<const char *>(&v), 2);
    }
    std::ofstream(std::string(path) + ".json")
        << "{\"format\": \"seqpar-tokens\", \"format_version\": 1, "
           "\"dtype\": \"uint16\", \"vocab_size\": 300, \"eos_id\": 0, "
           "\"num_tokens\": "
        << tokens.size() << ", \"num_documents\": " << docs << "}";
  }
  return path;
}

sprt::Model model(int64_t seq, int64_t batch) {
  sprt::Model m;
  m.seq = seq;
  m.batch = batch;
  m.microBatches = 1;
  m.vocab = 300;
  m.batchAxis = 0;
  m.seqAxis = 1;
  return m;
}

TEST(TokenBatch, ShuffledWindowsOverEpochs) {
  std::vector<int64_t> tokens;
  const std::string path = tokensFile(tokens);
  const int64_t size = sprt_test::worldSize(), sizes[2] = {size, 1};
  ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
  const int64_t S = 16, B = 2 * size, n = int64_t(tokens.size());
  sprt::Model m = model(S, B);
  sprt::Batcher batcher(m, 3);
  batcher.setDataSeed(77);
  std::string error;
  ASSERT_TRUE(batcher.load(path, false, false, error)) << error;
  ASSERT_TRUE(batcher.tokenized() && batcher.shuffled());
  const int64_t N = (n - 1) / S;
  sprt::SampleOrder order;
  order.reset(N, 77);
  // Enough steps for three epochs.
  const int64_t steps = 3 * N / B + 1;
  std::vector<int64_t> seen(size_t(N), 0);
  for (int64_t t = 1; t <= steps; ++t) {
    batcher.build(t);
    sprt::Batcher::Position p = batcher.position(t);
    EXPECT_EQ(p.epoch, (t - 1) * B / N);
    EXPECT_EQ(p.sample, (t - 1) * B % N);
    EXPECT_EQ(p.samplesPerEpoch, N);
    for (int64_t b = 0; b < B; ++b) {
      const int64_t k = (t - 1) * B + b, j = order.sampleAt(k);
      if (k < N)
        ++seen[size_t(j)];
      for (int64_t s = 0; s < S; ++s) {
        const size_t at = size_t(b * S + s);
        ASSERT_EQ(batcher.globalIds()[at], tokens[size_t(j * S + s)]);
        ASSERT_EQ(batcher.globalLabels()[at], tokens[size_t(j * S + s + 1)]);
        ASSERT_EQ(batcher.globalPositions()[at], s);
      }
    }
  }
  // The first epoch reads every window once.
  for (int64_t j = 0; j < N; ++j)
    EXPECT_EQ(seen[size_t(j)], 1) << "window " << j;
  // Another data seed, another order.
  sprt::Batcher other(m, 3);
  other.setDataSeed(78);
  ASSERT_TRUE(other.load(path, false, false, error)) << error;
  batcher.build(1);
  other.build(1);
  EXPECT_FALSE(std::equal(batcher.globalIds(), batcher.globalIds() + B * S,
                          other.globalIds()));
  sprt_mesh_finalize();
  std::remove(path.c_str());
  std::remove((path + ".json").c_str());
}

TEST(TokenBatch, PackedDocumentsEndAtEos) {
  std::vector<int64_t> tokens;
  const std::string path = tokensFile(tokens);
  const int64_t size = sprt_test::worldSize(), sizes[2] = {size, 1};
  ASSERT_EQ(sprt_mesh_init(2, sizes), 0);
  const int64_t S = 24, B = size, n = int64_t(tokens.size());
  sprt::Model m = model(S, B);
  sprt::Batcher batcher(m, 3);
  std::string error;
  ASSERT_TRUE(batcher.load(path, true, false, error)) << error;
  ASSERT_TRUE(batcher.packing() && !batcher.shuffled());
  int64_t restarts = 0, crossing = 0;
  for (int64_t t = 1; t <= n / (B * S) + 2; ++t) {
    batcher.build(t);
    EXPECT_EQ(batcher.position(t).epoch, (t - 1) * B * S / n);
    for (int64_t b = 0; b < B; ++b) {
      const int64_t k = (t - 1) * B + b;
      int64_t position = 0;
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = (k * S + s) % n;
        const size_t at = size_t(b * S + s);
        if (s > 0)
          position = tokens[size_t((i + n - 1) % n)] == 0 ? 0 : position + 1;
        restarts += s > 0 && position == 0;
        crossing += s == 0 && tokens[size_t((i + n - 1) % n)] != 0;
        ASSERT_EQ(batcher.globalIds()[at], tokens[size_t(i)]);
        ASSERT_EQ(batcher.globalLabels()[at],
                  tokens[size_t(i)] == 0 ? -100 : tokens[size_t((i + 1) % n)]);
        ASSERT_EQ(batcher.globalPositions()[at], position);
      }
    }
  }
  // Documents start inside sequences and continue into the next one.
  EXPECT_GT(restarts, 0);
  EXPECT_GT(crossing, 0);
  sprt_mesh_finalize();
  std::remove(path.c_str());
  std::remove((path + ".json").c_str());
}

} // namespace

//===- TokenDataTest.cpp - tokenized datasets and the sample order --------===//
//
// The reader of tokenized datasets (TokenData.h) against the ids written
// here, its errors (truncated file, sidecar mismatch, unknown dtype, ids out
// of the vocabulary with their offset), and the shuffled sample order
// (SampleOrder.h) against its definition: each epoch a permutation, the same
// for the same seed, another for another epoch or seed.
//
//===----------------------------------------------------------------------===//

#include "../driver/TokenData.h"
#include "../driver/SampleOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// A fresh path in /tmp.
std::string tempPath() {
  char path[] = "/tmp/sprt-tokens-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  return path;
}

template <typename T>
void writeIds(const std::string &path, const std::vector<int64_t> &ids) {
  std::ofstream out(path, std::ios::binary);
  for (int64_t id : ids) {
    T v = T(id);
    out.write(reinterpret_cast<const char *>(&v), sizeof v);
  }
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

std::string sidecar(const std::string &dtype, int64_t vocab, int64_t eos,
                    int64_t tokens, int64_t docs) {
  return "{\"format\": \"seqpar-tokens\", \"format_version\": 1, \"dtype\": "
         "\"" +
         dtype + "\", \"vocab_size\": " + std::to_string(vocab) +
         ", \"eos_id\": " + std::to_string(eos) +
         ", \"num_tokens\": " + std::to_string(tokens) +
         ", \"num_documents\": " + std::to_string(docs) + "}";
}

/// Opens `path` for a model of vocabulary `vocab`; the error or "".
std::string openError(const std::string &path, int64_t vocab) {
  sprt::TokenFile f;
  std::string error;
  bool ok = f.open(path, vocab, error);
  EXPECT_EQ(ok, error.empty());
  return error;
}

TEST(TokenData, ReadsUint16AndUint32) {
  const std::vector<int64_t> ids{5, 7, 0, 9, 65535, 3, 0};
  for (std::string dtype : {"uint16", "uint32"}) {
    std::string path = tempPath();
    if (dtype == "uint16")
      writeIds<uint16_t>(path, ids);
    else
      writeIds<uint32_t>(path, ids);
    writeText(sprt::tokenSidecar(path), sidecar(dtype, 65536, 0, 7, 2));
    EXPECT_TRUE(sprt::hasTokenSidecar(path));
    sprt::TokenFile f;
    std::string error;
    ASSERT_TRUE(f.open(path, 70000, error)) << error;
    ASSERT_EQ(f.size(), 7);
    EXPECT_EQ(f.eos(), 0);
    EXPECT_EQ(f.vocab(), 65536);
    EXPECT_EQ(f.documents(), 2);
    for (int64_t i = 0; i < 7; ++i)
      EXPECT_EQ(f[i], ids[size_t(i)]) << dtype << " token " << i;
    std::remove(path.c_str());
    std::remove(sprt::tokenSidecar(path).c_str());
  }
  EXPECT_FALSE(sprt::hasTokenSidecar("/nonexistent/tokens"));
}

TEST(TokenData, RefusesBadFilesWithClearErrors) {
  std::string path = tempPath();
  writeIds<uint16_t>(path, {1, 2, 3, 0, 4, 300, 0});
  auto with = [&](const std::string &meta, int64_t vocab) {
    writeText(sprt::tokenSidecar(path), meta);
    return openError(path, vocab);
  };
  EXPECT_EQ(with(sidecar("uint16", 512, 0, 7, 2), 512), "");
  // A token id not below the model's vocabulary: the file and its offset.
  EXPECT_EQ(with(sidecar("uint16", 256, 0, 7, 2), 256),
            "the data file '" + path +
                "' has token id 300 at token offset 5 (byte offset 10), not "
                "below the model's vocabulary size 256");
  EXPECT_EQ(with(sidecar("uint16", 256, 0, 7, 2), 512),
            "the data file '" + path +
                "' has token id 300 at token offset 5 (byte offset 10), not "
                "below its sidecar's vocab_size 256");
  EXPECT_EQ(with(sidecar("uint16", 1000, 0, 7, 2), 512),
            "the tokenized data '" + path +
                "' has vocab_size 1000 but the model's vocabulary has 512 "
                "entries");
  // The file shorter or longer than the sidecar says.
  EXPECT_EQ(with(sidecar("uint16", 512, 0, 9, 2), 512),
            "the data file '" + path +
                "' has 14 bytes but its sidecar says 9 uint16 tokens (18 "
                "bytes): the file is truncated");
  EXPECT_EQ(with(sidecar("uint16", 512, 0, 6, 2), 512),
            "the data file '" + path +
                "' has 14 bytes but its sidecar says 6 uint16 tokens (12 "
                "bytes)");
  EXPECT_EQ(with(sidecar("uint32", 512, 0, 7, 2), 512),
            "the data file '" + path +
                "' has 14 bytes but its sidecar says 7 uint32 tokens (28 "
                "bytes): the file is truncated");
  const std::string where = "the sidecar '" + sprt::tokenSidecar(path) + "'";
  EXPECT_EQ(with(sidecar("int8", 512, 0, 7, 2), 512),
            where + ": unknown dtype 'int8' (uint16 or uint32)");
  EXPECT_EQ(with(sidecar("uint16", 512, 0, 7, 3), 512),
            "the data file '" + path +
                "' has 2 EOS tokens (id 0) but its sidecar says "
                "num_documents 3");
  EXPECT_EQ(with(sidecar("uint16", 512, 600, 7, 2), 512),
            where + ": eos_id 600 is not below vocab_size 512");
  EXPECT_EQ(with("{\"format\": \"other\"}", 512),
            where + ": field 'format' must be \"seqpar-tokens\"");
  EXPECT_EQ(with("{\"format\": \"seqpar-tokens\", \"format_version\": 2}", 512),
            where + " has format version 2; this program reads version 1");
  EXPECT_EQ(with("{\"format\": \"seqpar-tokens\", \"format_version\": 1, "
                 "\"dtype\": \"uint16\", \"vocab_size\": 512}",
                 512),
            where + ": field 'eos_id' is missing");
  EXPECT_EQ(with("[1, 2", 512), where + " is not a JSON object");
  std::remove(sprt::tokenSidecar(path).c_str());
  EXPECT_EQ(openError(path, 512), "cannot read the sidecar '" +
                                      sprt::tokenSidecar(path) +
                                      "': No such file or directory");
  std::remove(path.c_str());
}

TEST(SampleOrder, EachEpochIsAPermutationFixedBySeedAndEpoch) {
  const int64_t n = 37;
  sprt::SampleOrder a, b, c;
  a.reset(n, 11);
  b.reset(n, 11);
  c.reset(n, 12);
  std::vector<int64_t> identity(n);
  for (int64_t i = 0; i < n; ++i)
    identity[size_t(i)] = i;
  std::vector<std::vector<int64_t>> epochs;
  for (int64_t e = 0; e < 3; ++e) {
    std::vector<int64_t> p = a.permutation(e);
    std::vector<int64_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, identity) << "epoch " << e;
    EXPECT_NE(p, identity) << "epoch " << e;
    EXPECT_EQ(p, b.permutation(e)) << "epoch " << e;
    EXPECT_NE(p, c.permutation(e)) << "epoch " << e;
    epochs.push_back(p);
  }
  EXPECT_NE(epochs[0], epochs[1]);
  EXPECT_NE(epochs[1], epochs[2]);
  // Global sample k: epoch k / n, sample perm_epoch[k mod n], in any order
  // of queries.
  for (int64_t k : {100, 3, 40, 74, 0, 110, 36, 37}) {
    EXPECT_EQ(a.epochOf(k), k / n);
    EXPECT_EQ(a.sampleAt(k), epochs[size_t(k / n)][size_t(k % n)]) << k;
  }
}

} // namespace

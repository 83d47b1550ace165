//===- HfExportTest.cpp - the shards and directory of --export-hf ---------===//

#include "../driver/HfExport.h"
#include "../driver/Flags.h"
#include "FlagsTestUtil.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sprt;

namespace {
std::string tempDir() {
  char templ[] = "/tmp/sprt-hfexport-XXXXXX";
  return mkdtemp(templ);
}

void touch(const std::string &path) { std::ofstream(path) << "x"; }

} // namespace

// Hugging Face's rule: tensors in order, a new shard when the next one
// would pass the limit; a tensor above it alone in its shard.
TEST(HfExport, ShardsFillInOrderUpToTheLimit) {
  using Shards = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(planShards({10, 20, 30}, 100), (Shards{{0, 1, 2}}));
  EXPECT_EQ(planShards({10, 20, 30}, 30), (Shards{{0, 1}, {2}}));
  EXPECT_EQ(planShards({10, 20, 30}, 29), (Shards{{0}, {1}, {2}}));
  EXPECT_EQ(planShards({50, 5, 5, 50}, 10), (Shards{{0}, {1, 2}, {3}}));
  EXPECT_EQ(planShards({}, 10), Shards{});
}

TEST(HfExport, DirectoryMissingEmptyOrAPreviousExport) {
  std::string dir = tempDir();
  EXPECT_EQ(exportDirProblem(dir + "/missing"), "");
  EXPECT_EQ(exportDirProblem(dir), "");
  for (const char *f :
       {"config.json", "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors", "model.safetensors.index.json"})
    touch(dir + "/" + f);
  EXPECT_EQ(exportDirProblem(dir), "");
  touch(dir + "/notes.txt");
  EXPECT_EQ(exportDirProblem(dir),
            "--export-hf: '" + dir +
                "' is not empty and not a previous export (it holds "
                "'notes.txt'): not replacing it");
  std::string noConfig = tempDir();
  touch(noConfig + "/model.safetensors");
  EXPECT_EQ(exportDirProblem(noConfig),
            "--export-hf: '" + noConfig +
                "' is not empty and not a previous export (no config.json): "
                "not replacing it");
  EXPECT_EQ(exportDirProblem(noConfig + "/model.safetensors"),
            "--export-hf: '" + noConfig +
                "/model.safetensors' exists and is not a directory");
  std::system(("rm -rf '" + dir + "' '" + noConfig + "'").c_str());
}

TEST(HfExport, Flags) {
  Flags f;
  std::string error;
  ASSERT_TRUE(
      parse({"--export-hf", "out", "--export-shard-bytes", "1000"}, f, error))
      << error;
  EXPECT_EQ(f.exportHf, "out");
  EXPECT_EQ(f.exportShardBytes, 1000);
  Flags g;
  EXPECT_FALSE(parse({"--export-shard-bytes", "1000"}, g, error));
  EXPECT_EQ(error, "--export-shard-bytes needs --export-hf");
  Flags h;
  EXPECT_FALSE(
      parse({"--export-hf", "out", "--export-shard-bytes", "0"}, h, error));
  EXPECT_EQ(error, "--export-shard-bytes must be a positive number of bytes, "
                   "got '0'");
  Flags k;
  EXPECT_FALSE(parse({"--export-hf", ""}, k, error));
  EXPECT_EQ(error, "--export-hf needs a directory, got ''");
}

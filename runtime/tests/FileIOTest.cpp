//===- FileIOTest.cpp - checked writes and strict flags -------------------===//

#include "../driver/FileIO.h"
#include "../driver/Flags.h"
#include "../driver/Outputs.h"
#include "FlagsTestUtil.h"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sprt;

namespace {
std::string tempDir() {
  char templ[] = "/tmp/sprt-fileio-XXXXXX";
  return mkdtemp(templ);
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST(FileIO, RegularFilesOnly) {
  std::string dir = tempDir();
  EXPECT_EQ(notRegularFile(dir), "is a directory, not a file");
  EXPECT_EQ(notRegularFile("/dev/null"), "is a device, not a regular file");
  EXPECT_EQ(notRegularFile(dir + "/missing"), "No such file or directory");
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(notRegularFile(fifo), "is a FIFO, not a regular file");
  std::string error;
  ASSERT_TRUE(writeFileAtomically(dir + "/f", "x", error)) << error;
  EXPECT_EQ(notRegularFile(dir + "/f"), "");
}

TEST(FileIO, AtomicFileAppearsOnlyWhenCommitted) {
  std::string dir = tempDir(), path = dir + "/out", error;
  {
    AtomicFile f;
    ASSERT_TRUE(f.open(path, error)) << error;
    ASSERT_TRUE(f.write("abc", 3, error)) << error;
    EXPECT_NE(access(path.c_str(), F_OK), 0); // not there before commit
  }
  // Destroyed without commit: neither the file nor its temporary remain.
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  EXPECT_NE(access((path + ".tmp").c_str(), F_OK), 0);
  ASSERT_TRUE(writeFileAtomically(path, "hello\n", error)) << error;
  EXPECT_EQ(slurp(path), "hello\n");
  EXPECT_NE(access((path + ".tmp").c_str(), F_OK), 0);
}

TEST(FileIO, WritesToADeviceAreRefused) {
  std::string error;
  EXPECT_FALSE(writeFileAtomically("/dev/full", "x", error));
  EXPECT_EQ(error, "cannot write '/dev/full': is a device, not a regular file");
}

TEST(FileIO, LineFileReportsAFullDisk) {
  LineFile log;
  std::string error;
  ASSERT_TRUE(log.open("/dev/full", false, error)) << error;
  EXPECT_FALSE(log.append("{}\n", error));
  EXPECT_EQ(error, "cannot write '/dev/full': No space left on device");
}

TEST(FileIO, LineFileTruncatesOrAppends) {
  std::string dir = tempDir(), path = dir + "/log", error;
  ASSERT_TRUE(writeFileAtomically(path, "old\n", error)) << error;
  {
    LineFile log;
    ASSERT_TRUE(log.open(path, true, error)) << error;
    ASSERT_TRUE(log.append("new\n", error)) << error;
    ASSERT_TRUE(log.close(error)) << error;
  }
  EXPECT_EQ(slurp(path), "old\nnew\n");
  {
    LineFile log;
    ASSERT_TRUE(log.open(path, false, error)) << error;
    ASSERT_TRUE(log.close(error)) << error;
  }
  EXPECT_EQ(slurp(path), "");
}

TEST(FileIO, LineFileKeepsWholeLines) {
  std::string dir = tempDir(), path = dir + "/log", error;
  LineFile log;
  ASSERT_TRUE(log.open(path, false, error)) << error;
  // Past a file-size limit of 10 bytes (EFBIG instead of SIGXFSZ).
  void (*handler)(int) = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 10;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool first = log.append("12345\n", error);
  bool second = log.append("1234567890\n", error);
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, handler);
  EXPECT_TRUE(first);
  EXPECT_FALSE(second);
  EXPECT_EQ(error, "cannot write '" + path + "': File too large");
  EXPECT_EQ(slurp(path), "12345\n");
}

TEST(Outputs, FilesAreCheckedWithoutBeingWritten) {
  std::string dir = tempDir(), error;
  std::string file = dir + "/f";
  ASSERT_TRUE(writeFileAtomically(file, "keep", error)) << error;
  EXPECT_EQ(outputFileProblem("--log", file, false), "");
  EXPECT_EQ(outputFileProblem("--dump-params", file, true), "");
  EXPECT_EQ(outputFileProblem("--log", dir + "/new", false), "");
  EXPECT_EQ(slurp(file), "keep");
  EXPECT_NE(access((dir + "/new").c_str(), F_OK), 0);
  EXPECT_EQ(outputFileProblem("--log", dir + "/no/m.jsonl", false),
            "--log: cannot write '" + dir + "/no/m.jsonl': '" + dir +
                "/no' does not exist");
  EXPECT_EQ(outputFileProblem("--dump-grads", file + "/g", true),
            "--dump-grads: cannot write '" + file + "/g': '" + file +
                "' is not a directory");
  EXPECT_EQ(outputFileProblem("--dump-params", dir, true),
            "--dump-params: cannot write '" + dir +
                "': is a directory, not a file");
  EXPECT_EQ(outputFileProblem("--dump-params", dir + "/x/", true),
            "--dump-params: cannot write '" + dir +
                "/x/': it names a directory, not a file");
  EXPECT_EQ(outputFileProblem("--log", "/dev/full", false),
            "--log: cannot write '/dev/full': is a device, not a regular file");
  EXPECT_EQ(outputFileProblem("--log", "m.jsonl", false), "");
}

TEST(Outputs, Directories) {
  std::string dir = tempDir(), error;
  ASSERT_TRUE(writeFileAtomically(dir + "/f", "", error)) << error;
  EXPECT_EQ(outputDirProblem("--checkpoint-dir", dir, false), "");
  EXPECT_EQ(outputDirProblem("--checkpoint-dir", dir + "/ck/", false), "");
  EXPECT_EQ(outputDirProblem("--checkpoint-dir", dir + "/a/ck", false),
            "--checkpoint-dir: cannot create '" + dir + "/a/ck': '" + dir +
                "/a' does not exist");
  // A directory made with its parents needs the nearest existing one.
  EXPECT_EQ(outputDirProblem("--export-hf", dir + "/a/b/c", true), "");
  EXPECT_EQ(outputDirProblem("--export-hf", dir + "/f/b/c", true),
            "--export-hf: cannot create '" + dir + "/f/b/c': '" + dir +
                "/f' is not a directory");
  EXPECT_EQ(outputDirProblem("--checkpoint-dir", dir + "/f", false),
            "--checkpoint-dir: '" + dir + "/f' is not a directory");
  EXPECT_NE(access((dir + "/a").c_str(), F_OK), 0);
}

TEST(Outputs, CheckpointsBelongToTheirRun) {
  std::string dir = tempDir(), error;
  EXPECT_EQ(checkpointOwnerProblem(dir, false, false), "");
  EXPECT_EQ(checkpointOwnerProblem(dir + "/missing", false, false), "");
  // A killed save's temporary is no checkpoint.
  ASSERT_EQ(mkdir((dir + "/.step-00000003.tmp").c_str(), 0755), 0);
  EXPECT_EQ(checkpointOwnerProblem(dir, false, false), "");
  for (const char *step :
       {"step-00000001", "step-00000002", "step-00000003", "step-00000004"})
    ASSERT_EQ(mkdir((dir + "/" + step).c_str(), 0755), 0);
  EXPECT_EQ(checkpointOwnerProblem(dir, false, false),
            "--checkpoint-dir '" + dir +
                "' already holds another run's checkpoints (..., "
                "step-00000002, step-00000003, step-00000004): give --resume "
                "to continue from them or --overwrite-checkpoints to write "
                "this run's over them");
  ASSERT_TRUE(writeFileAtomically(dir + "/latest", "step-00000004\n", error));
  EXPECT_NE(checkpointOwnerProblem(dir, false, false)
                .find("checkpoints ('latest', ..., step-00000002"),
            std::string::npos);
  EXPECT_EQ(checkpointOwnerProblem(dir, true, false), "");
  EXPECT_EQ(checkpointOwnerProblem(dir, false, true), "");
}

TEST(Outputs, OutputsDifferFromEachOtherAndTheInputs) {
  std::string dir = tempDir(), error;
  ASSERT_TRUE(writeFileAtomically(dir + "/data", "text", error)) << error;
  ASSERT_TRUE(writeFileAtomically(dir + "/init", "x", error)) << error;
  Flags f;
  f.data = dir + "/data";
  f.initFrom = dir + "/init";
  f.dumpParams = dir + "/p";
  f.dumpGrads = dir + "/./p";
  EXPECT_EQ(outputsProblem(f), "--dump-params and --dump-grads name the same "
                               "file '" +
                                   dir + "/./p'");
  f.dumpGrads = "";
  f.log = dir + "/data";
  EXPECT_EQ(outputsProblem(f), "--log '" + dir +
                                   "/data' is the --data file: the output "
                                   "would replace the input");
  f.log = dir + "/init";
  EXPECT_EQ(outputsProblem(f), "--log '" + dir +
                                   "/init' is the --init-from file: the "
                                   "output would replace the input");
  // A dump may replace the parameters it started from.
  f.log = "";
  f.dumpParams = dir + "/init";
  EXPECT_EQ(outputsProblem(f), "");
  f.exportHf = dir + "/data/hf";
  EXPECT_EQ(outputsProblem(f), "--export-hf: cannot write '" + dir +
                                   "/data/hf': '" + dir +
                                   "/data' is not a directory");
  f.exportHf = dir + "/new/hf";
  f.checkpointDir = dir + "/new/ck";
  EXPECT_EQ(outputsProblem(f), "--checkpoint-dir: cannot create '" + dir +
                                   "/new/ck': '" + dir +
                                   "/new' does not exist");
}

TEST(Flags, NumbersAreStrict) {
  Flags f;
  std::string error;
  EXPECT_TRUE(parse({"--steps", "9223372036854775807", "--seed",
                     "18446744073709551615", "--timeout", "0.5"},
                    f, error))
      << error;
  EXPECT_EQ(f.steps, INT64_MAX);
  EXPECT_EQ(f.seed, UINT64_MAX);
  EXPECT_EQ(f.timeout, 0.5);
  for (const char *bad : {"9223372036854775808", "-1", "+3", " 3", "3 ", "3x",
                          "", "0x10", "1e3"}) {
    Flags g;
    EXPECT_FALSE(parse({"--steps", bad}, g, error)) << bad;
    EXPECT_EQ(error, "--steps must be a positive integer, got '" +
                         std::string(bad) + "'");
  }
  EXPECT_FALSE(parse({"--seed", "18446744073709551616"}, f, error));
  EXPECT_FALSE(parse({"--timeout", "inf"}, f, error));
  EXPECT_FALSE(parse({"--timeout", "-1"}, f, error));
  EXPECT_FALSE(parse({"--save-every", "0"}, f, error));
}

TEST(Flags, ConflictsAreErrors) {
  Flags f;
  std::string error;
  EXPECT_FALSE(parse({"--resume"}, f, error));
  EXPECT_EQ(error, "--save-every and --resume need --checkpoint-dir");
  Flags g;
  EXPECT_FALSE(parse(
      {"--checkpoint-dir", "d", "--resume", "--init-from", "x.safetensors"}, g,
      error));
  EXPECT_EQ(error, "--init-from and --resume conflict: a resumed run takes "
                   "its parameters from the checkpoint");
  Flags h;
  EXPECT_FALSE(parse({"--on-nonfinite", "ignore"}, h, error));
  EXPECT_EQ(error, "--on-nonfinite must be 'stop' or 'skip', got 'ignore'");
  Flags k;
  EXPECT_TRUE(parse({"--on-nonfinite", "skip"}, k, error));
  EXPECT_TRUE(k.skipNonFinite);
}

TEST(Flags, DumpDtype) {
  Flags f;
  std::string error;
  EXPECT_TRUE(parse({"--dump-params", "p", "--dump-dtype", "bf16"}, f, error))
      << error;
  EXPECT_EQ(f.dumpDtype, "bf16");
  Flags g;
  EXPECT_TRUE(parse({"--dump-grads", "g", "--dump-dtype", "f16"}, g, error))
      << error;
  EXPECT_EQ(g.dumpDtype, "f16");
  Flags d;
  EXPECT_TRUE(parse({"--dump-params", "p"}, d, error)) << error;
  EXPECT_EQ(d.dumpDtype, ""); // the model's precision
  for (const char *bad : {"F32", "bfloat16", "fp16", "f64", ""}) {
    Flags h;
    EXPECT_FALSE(parse({"--dump-params", "p", "--dump-dtype", bad}, h, error));
    EXPECT_EQ(error, "--dump-dtype must be 'f32', 'bf16' or 'f16', got '" +
                         std::string(bad) + "'");
  }
  Flags k;
  EXPECT_FALSE(parse({"--dump-dtype", "bf16"}, k, error));
  EXPECT_EQ(error, "--dump-dtype needs --dump-params or --dump-grads");
}

TEST(Flags, CudaGraph) {
  std::string error;
  Flags d;
  EXPECT_TRUE(parse({}, d, error)) << error;
  EXPECT_TRUE(d.cudaGraph); // the default
  Flags off, on;
  EXPECT_TRUE(parse({"--cuda-graph=false"}, off, error)) << error;
  EXPECT_FALSE(off.cudaGraph);
  EXPECT_TRUE(parse({"--cuda-graph=true"}, on, error)) << error;
  EXPECT_TRUE(on.cudaGraph);
  for (const char *bad : {"--cuda-graph", "--cuda-graph=0", "--cuda-graphs"}) {
    Flags f;
    EXPECT_FALSE(parse({bad}, f, error));
    EXPECT_EQ(error, "--cuda-graph takes =true or =false, got '" +
                         std::string(bad) + "'");
  }
  Flags twice;
  EXPECT_FALSE(
      parse({"--cuda-graph=true", "--cuda-graph=false"}, twice, error));
  EXPECT_EQ(error, "flag --cuda-graph is given more than once (give each flag "
                   "once)");
}

TEST(Flags, PackDocumentsNeedsTextData) {
  std::string error;
  Flags f;
  EXPECT_TRUE(parse({"--data", "t.txt", "--pack-documents"}, f, error))
      << error;
  EXPECT_TRUE(f.packDocuments);
  Flags g;
  EXPECT_TRUE(parse({"--data", "t.txt"}, g, error)) << error;
  EXPECT_FALSE(g.packDocuments);
  Flags h;
  EXPECT_FALSE(parse({"--pack-documents"}, h, error));
  EXPECT_EQ(error, "--pack-documents needs --data (a text whose paragraphs, "
                   "ended by a blank line, are the documents)");
}

TEST(Flags, ShuffleDataSeedEpochsAndValidation) {
  std::string error;
  Flags f;
  EXPECT_TRUE(
      parse({"--data", "d", "--shuffle", "--data-seed", "9", "--valid-data",
             "v", "--eval-every", "50", "--eval-steps", "4"},
            f, error))
      << error;
  EXPECT_TRUE(f.shuffle);
  EXPECT_TRUE(f.hasDataSeed);
  EXPECT_EQ(f.dataSeed, 9u);
  EXPECT_EQ(f.validData, "v");
  EXPECT_EQ(f.evalEvery, 50);
  EXPECT_EQ(f.evalSteps, 4);
  Flags g;
  EXPECT_TRUE(parse({"--data", "d", "--valid-data", "v"}, g, error)) << error;
  EXPECT_FALSE(g.shuffle || g.hasDataSeed);
  EXPECT_EQ(g.evalEvery, 0);
  EXPECT_EQ(g.evalSteps, 1);
  auto fails = [&](std::vector<std::string> args, const std::string &want) {
    Flags h;
    std::string e;
    EXPECT_FALSE(parse(args, h, e));
    EXPECT_EQ(e, want);
  };
  fails({"--shuffle"}, "--shuffle needs --data");
  fails({"--data", "d", "--shuffle", "--pack-documents"},
        "--shuffle and --pack-documents conflict: packed documents are read "
        "in order (a document continues in the next sequence)");
  fails({"--data-seed", "3"}, "--data-seed needs --data");
  fails({"--data", "d", "--epochs", "2", "--steps", "5"},
        "--epochs and --steps conflict: give one");
  fails({"--epochs", "2"}, "--epochs needs --data");
  fails({"--data", "d", "--epochs", "0"},
        "--epochs must be a positive integer, got '0'");
  Flags e;
  EXPECT_TRUE(parse({"--data", "d", "--epochs", "3"}, e, error)) << error;
  EXPECT_EQ(e.epochs, 3);
  EXPECT_FALSE(e.hasSteps);
  fails({"--valid-data", "v"}, "--valid-data needs --data");
  fails({"--data", "d", "--eval-steps", "2"},
        "--eval-every and --eval-steps need --valid-data");
  fails({"--data", "d", "--valid-data", "v", "--eval-every", "0"},
        "--eval-every must be a positive integer, got '0'");
  fails({"--data", "d", "--valid-data", ""},
        "--valid-data needs a file, got ''");
  fails({"--data", "d", "--data-seed", "-1"},
        "--data-seed must be a non-negative integer, got '-1'");
}

TEST(Flags, EachFlagOnceWithAValue) {
  std::string e;
  auto fails = [&](std::vector<std::string> args, const std::string &why) {
    Flags h;
    EXPECT_FALSE(parse(args, h, e));
    EXPECT_EQ(e, why);
  };
  fails({"--steps", "3", "--steps", "4"},
        "flag --steps is given more than once (give each flag once)");
  fails({"--checkpoint-dir", "c", "--resume", "--resume"},
        "flag --resume is given more than once (give each flag once)");
  fails({"--lr", "0.1", "--lr", "0.2"},
        "flag --lr is given more than once (give each flag once)");
  fails({"--stepz", "1", "--stepz", "1"},
        "unknown flag '--stepz' (see --help)");
  for (const char *flag : {"--data", "--init-from", "--log", "--dump-params",
                           "--dump-outputs", "--dump-grads"})
    fails({flag, ""}, std::string(flag) + " needs a file, got ''");
  fails({"--checkpoint-dir", ""}, "--checkpoint-dir needs a directory, got ''");
}

TEST(Flags, MeaninglessCombinations) {
  std::string e;
  auto fails = [&](std::vector<std::string> args, const std::string &why) {
    Flags h;
    EXPECT_FALSE(parse(args, h, e));
    EXPECT_EQ(e, why);
  };
  fails({"--overwrite-checkpoints"},
        "--overwrite-checkpoints needs --checkpoint-dir");
  fails({"--checkpoint-dir", "c", "--resume", "--overwrite-checkpoints"},
        "--overwrite-checkpoints and --resume conflict: --resume continues "
        "the checkpoints in --checkpoint-dir, --overwrite-checkpoints writes "
        "a new run's over them");
  fails({"--checkpoint-dir", "c", "--resume", "--seed", "5"},
        "--seed and --resume conflict: a resumed run goes on with the seed "
        "its checkpoint recorded");
  fails(
      {"--data", "d", "--checkpoint-dir", "c", "--resume", "--data-seed", "5"},
      "--data-seed and --resume conflict: a resumed run goes on with the "
      "sample order its checkpoint recorded");
  Flags f;
  EXPECT_TRUE(
      parse({"--checkpoint-dir", "c", "--overwrite-checkpoints", "--seed", "5"},
            f, e))
      << e;
  EXPECT_TRUE(f.overwriteCheckpoints);
  EXPECT_TRUE(f.hasSeed);
}

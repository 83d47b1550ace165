//===- Main.cpp - main() of a compiled seqpar program ---------------------===//
//
//   mpirun -np N ./prog [--steps K] [--seed S] [--data FILE]
//                       [--init-from FILE.safetensors|INDEX.json]
//                       [--log metrics.jsonl] [--dump-params FILE]
//                       [--dump-outputs FILE]
//
// Every check that can fail is made by every rank on the same inputs before
// any collective, so a bad flag or file makes every rank print the error and
// exit 1 instead of leaving the others waiting.
//
//===----------------------------------------------------------------------===//

#include "Batch.h"
#include "Checkpoint.h"
#include "Model.h"
#include "Params.h"
#include "SafeTensors.h"

#include "sprt/device.h"
#include "sprt/runtime.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mpi.h>
#include <string>

using namespace sprt;

namespace {
struct Flags {
  int64_t steps = 1;
  uint64_t seed = 1234;
  std::string data, initFrom, log, dumpParams, dumpOutputs, dumpGrads;
  std::string checkpointDir;
  int64_t saveEvery = 0;
  bool resume = false;
};

int rankOf() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// Prints the error on this rank and exits 1 (every rank reaches this).
[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "error: rank %d: %s\n", rankOf(), message.c_str());
  std::fflush(stderr);
  MPI_Finalize();
  std::exit(1);
}

bool parseInt(const char *s, int64_t &out) {
  char *end = nullptr;
  long long v = std::strtoll(s, &end, 10);
  if (!*s || *end)
    return false;
  out = v;
  return true;
}

Flags parseFlags(int argc, char **argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        fail("flag " + a + " needs a value");
      return argv[++i];
    };
    int64_t n;
    if (a == "--steps") {
      if (!parseInt(value(), n) || n < 1)
        fail("--steps must be a positive integer, got '" +
             std::string(argv[i]) + "'");
      f.steps = n;
    } else if (a == "--seed") {
      if (!parseInt(value(), n) || n < 0)
        fail("--seed must be a non-negative integer, got '" +
             std::string(argv[i]) + "'");
      f.seed = uint64_t(n);
    } else if (a == "--data") {
      f.data = value();
    } else if (a == "--init-from") {
      f.initFrom = value();
    } else if (a == "--log") {
      f.log = value();
    } else if (a == "--dump-params") {
      f.dumpParams = value();
    } else if (a == "--dump-outputs") {
      f.dumpOutputs = value();
    } else if (a == "--dump-grads") {
      f.dumpGrads = value();
    } else if (a == "--checkpoint-dir") {
      f.checkpointDir = value();
    } else if (a == "--save-every") {
      if (!parseInt(value(), n) || n < 1)
        fail("--save-every must be a positive integer, got '" +
             std::string(argv[i]) + "'");
      f.saveEvery = n;
    } else if (a == "--resume") {
      f.resume = true;
    } else if (a == "--help" || a == "-h") {
      if (rankOf() == 0)
        std::printf(
            "usage: mpirun -np N %s [--steps K] [--seed S] "
            "[--data FILE] [--init-from FILE] [--log FILE] "
            "[--dump-params FILE] [--dump-outputs FILE] "
            "[--dump-grads FILE] [--checkpoint-dir DIR [--save-every N] "
            "[--resume]]\n",
            argv[0]);
      MPI_Finalize();
      std::exit(0);
    } else {
      fail("unknown flag '" + a + "' (see --help)");
    }
  }
  return f;
}

std::string humanBytes(int64_t b) {
  char buf[32];
  if (b >= (1 << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1 << 20));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%lld B", (long long)b);
  return buf;
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Flags flags = parseFlags(argc, argv);
  std::string error;
  Model model;
  if (!model.parse(seqpar_model_json, error))
    fail(error);
  if (sprt_mesh_init(int32_t(model.axisSizes.size()), model.axisSizes.data()) !=
      0) {
    MPI_Finalize();
    return 1;
  }
  sprt_set_seed(flags.seed);
  int rank = int(sprt_world_rank());

  Batcher batcher(model, flags.seed);
  if (!flags.data.empty() && !batcher.loadText(flags.data, error))
    fail(error);

  Params params(model);
  if (flags.initFrom.empty())
    params.initialize(flags.seed);
  else if (!params.load(flags.initFrom, error))
    fail(error);

  FILE *log = nullptr;
  if (rank == 0 && !flags.log.empty() &&
      !(log = std::fopen(flags.log.c_str(), "w")))
    fail("cannot write the metrics log '" + flags.log + "'");

  // Device memory (sprt/device.h): the arena of the size the compiler
  // computed, and the step's token inputs.
  char *arena = static_cast<char *>(sprt_device_alloc(model.arenaBytes));
  int64_t tokenBytes = batcher.localTokens() * int64_t(sizeof(int64_t));
  auto *ids = static_cast<int64_t *>(sprt_device_alloc(tokenBytes));
  auto *labels = static_cast<int64_t *>(sprt_device_alloc(tokenBytes));
  if (!arena || !ids || !labels)
    fail("cannot allocate " + std::to_string(model.arenaBytes) + " bytes of " +
         sprt_backend_name() + " memory for the arena");

  if (!flags.dumpGrads.empty() && !model.training())
    fail("--dump-grads needs a training program (sp-compile --train)");
  // AdamW's fp32 moments: two buffers per parameter shard, zero at first.
  std::vector<float *> state;
  // With a distributed optimizer a parameter's state is this replica's
  // slice of its shard.
  if (model.optimizer == "adamw")
    for (size_t i = 0; i < model.params.size(); ++i) {
      int64_t n = model.params[i].localElements() /
                  sprt_axis_size(int32_t(model.stateShardAxis(int64_t(i))));
      for (int k = 0; k < 2; ++k)
        state.push_back(static_cast<float *>(
            sprt_device_alloc(n * int64_t(sizeof(float)))));
    }
  if ((flags.saveEvery || flags.resume) && flags.checkpointDir.empty())
    fail("--save-every and --resume need --checkpoint-dir");
  if ((flags.saveEvery || flags.resume) && !model.training())
    fail("checkpoints need a training program (sp-compile --train)");
  int64_t first = 1;
  if (flags.resume) {
    ResumePoint at;
    if (!resumeCheckpoint(flags.checkpointDir, model, params, state, at, error))
      fail(error);
    first = at.step + 1;
    // The seed fixes the data order and every random number: the run goes
    // on exactly as the one that saved.
    flags.seed = at.seed;
    sprt_set_seed(at.seed);
    batcher.setSeed(at.seed);
    if (rank == 0)
      std::printf("resumed from step %lld of '%s'\n", (long long)at.step,
                  flags.checkpointDir.c_str());
  }
  std::vector<float> scalars(size_t(model.numScalars), 0.0f);
  std::vector<float *> grads(model.grads.size(), nullptr);

  float loss = 0.0f;
  for (int64_t step = first; step <= flags.steps; ++step) {
    batcher.build(step);
    sprt_reset_bytes_sent();
    sprt_set_step(step);
    MPI_Barrier(MPI_COMM_WORLD);
    auto start = std::chrono::steady_clock::now();
    sprt_stream_t stream = sprt_current_stream();
    sprt_memcpy_to_device(ids, batcher.localIds(), tokenBytes, stream);
    sprt_memcpy_to_device(labels, batcher.localLabels(), tokenBytes, stream);
    seqpar_step(arena, params.pointers(), ids, labels, scalars.data(),
                grads.data(), state.data());
    sprt_stream_synchronize(stream);
    loss = scalars[0];
    if (flags.saveEvery && step % flags.saveEvery == 0 &&
        !saveCheckpoint(flags.checkpointDir, step, flags.seed, flags.data,
                        model, params, state, error))
      fail(error);
    if (step == flags.steps && !flags.dumpGrads.empty()) {
      std::vector<const float *> local(grads.begin(), grads.end());
      if (!Params::dumpSharded(model, model.grads, "", local, flags.dumpGrads,
                               error, model.gradShardAxes))
        fail(error);
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (rank != 0)
      continue;
    std::string comm;
    for (size_t a = 0; a < model.axes.size(); ++a)
      comm +=
          " " + model.axes[a] + " " + humanBytes(sprt_bytes_sent(int32_t(a)));
    std::string norm;
    if (model.numScalars > 1)
      norm = " grad_norm " + std::to_string(scalars[1]);
    std::printf("step %lld loss %.6f%s  [%lld/%lld, %.1f ms, sent%s]\n",
                (long long)step, loss, norm.c_str(), (long long)step,
                (long long)flags.steps, seconds * 1e3, comm.c_str());
    std::fflush(stdout);
    if (log) {
      std::fprintf(log,
                   "{\"step\": %lld, \"loss\": %.9g, \"step_time_s\": %.6f",
                   (long long)step, loss, seconds);
      if (model.numScalars > 1)
        std::fprintf(log, ", \"grad_norm\": %.9g", scalars[1]);
      std::fprintf(log, ", \"bytes_sent\": {");
      for (size_t a = 0; a < model.axes.size(); ++a)
        std::fprintf(log, "%s\"%s\": %lld", a ? ", " : "",
                     model.axes[a].c_str(),
                     (long long)sprt_bytes_sent(int32_t(a)));
      std::fprintf(
          log, "}, \"arena_high_water\": %lld, \"arena_bytes\": %lld}\n",
          (long long)sprt_arena_high_water(), (long long)model.arenaBytes);
      std::fflush(log);
    }
  }
  if (log)
    std::fclose(log);

  bool ok = true;
  if (!flags.dumpParams.empty())
    ok &= params.dump(flags.dumpParams, error);
  if (ok && rank == 0 && !flags.dumpOutputs.empty()) {
    std::vector<int64_t> shape{model.batch, model.seq};
    uint64_t bytes = uint64_t(model.batch * model.seq) * sizeof(int64_t);
    ok &= writeSafeTensors(
        flags.dumpOutputs,
        {{"input_ids", "I64", shape, batcher.globalIds(), bytes},
         {"labels", "I64", shape, batcher.globalLabels(), bytes},
         {"loss", "F32", {}, &loss, sizeof(float)}},
        error);
  }
  if (!ok)
    fail(error);
  for (void *p : {static_cast<void *>(arena), static_cast<void *>(ids),
                  static_cast<void *>(labels)})
    sprt_device_free(p);
  for (float *p : state)
    sprt_device_free(p);
  sprt_mesh_finalize();
  MPI_Finalize();
  return 0;
}

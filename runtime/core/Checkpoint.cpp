//===- Checkpoint.cpp - save and resume training --------------------------===//

#include "Checkpoint.h"
#include "SafeTensors.h"

#include "sprt/runtime.h"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace sprt;
using nlohmann::json;

static std::string stepName(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", (long long)step);
  return buf;
}

static bool removeTree(const std::string &path) {
  // Only ever our own flat checkpoint directories: files, then the folder.
  for (const char *f :
       {"model.safetensors", "optimizer.safetensors", "checkpoint.json"})
    std::remove((path + "/" + f).c_str());
  return ::rmdir(path.c_str()) == 0 || errno == ENOENT;
}

/// The axis slicing each parameter's optimizer state (distributed
/// optimizer), or -1.
static std::vector<int64_t> sliceAxes(const Model &model) {
  std::vector<int64_t> axes;
  for (size_t i = 0; i < model.params.size(); ++i)
    axes.push_back(model.stateShardAxis(int64_t(i)));
  return axes;
}

/// The state tensors of the optimizer, as (indices, suffix, pointers).
static void stateViews(const Model &model, const std::vector<float *> &state,
                       std::vector<int64_t> &indices,
                       std::vector<std::string> &suffixes,
                       std::vector<std::vector<float *>> &views) {
  if (model.optimizer != "adamw")
    return;
  for (size_t i = 0; i < model.params.size(); ++i)
    indices.push_back(int64_t(i));
  suffixes = {".exp_avg", ".exp_avg_sq"};
  views.assign(2, {});
  for (size_t i = 0; i < model.params.size(); ++i) {
    views[0].push_back(state[2 * i]);
    views[1].push_back(state[2 * i + 1]);
  }
}

bool sprt::saveCheckpoint(const std::string &dir, int64_t step, uint64_t seed,
                          const std::string &dataFile, const Model &model,
                          Params &params, const std::vector<float *> &state,
                          std::string &error) {
  bool root = sprt_world_rank() == 0;
  std::string name = stepName(step), tmp = dir + "/." + name + ".tmp",
              final = dir + "/" + name;
  int ok = 1;
  if (root) {
    ::mkdir(dir.c_str(), 0755);
    removeTree(tmp);
    if (::mkdir(tmp.c_str(), 0755) != 0) {
      error = "cannot create the checkpoint directory '" + tmp + "'";
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    if (!root)
      error = "rank 0 could not create the checkpoint directory '" + tmp + "'";
    return false;
  }
  // Every rank takes part in assembling the whole tensors.
  std::string localError;
  bool good = params.dump(tmp + "/model.safetensors", localError);
  std::vector<int64_t> indices;
  std::vector<std::string> suffixes;
  std::vector<std::vector<float *>> views;
  stateViews(model, state, indices, suffixes, views);
  if (!suffixes.empty()) {
    // One file with both moments: dump each, then merge the two headers by
    // writing the second under its own name.
    std::vector<const float *> m(views[0].begin(), views[0].end());
    std::vector<const float *> v(views[1].begin(), views[1].end());
    good &= Params::dumpSharded(model, indices, suffixes[0], m,
                                tmp + "/optimizer.safetensors", localError,
                                sliceAxes(model));
    good &= Params::dumpSharded(model, indices, suffixes[1], v,
                                tmp + "/optimizer2.safetensors", localError,
                                sliceAxes(model));
  }
  if (root && good) {
    // Batches and dropout masks are functions of (seed, step): the data
    // position and the random generator's state are the step and the seed.
    json meta = {
        {"format", "seqpar-checkpoint-1"},
        {"step", step},
        {"seed", seed},
        {"data", dataFile},
        {"data_position", {{"sequences_consumed", step * model.batch}}},
        {"rng",
         {{"generator", "philox4x32-10"},
          {"seed", seed},
          {"counter", "global element index"}}},
        {"optimizer", model.optimizer},
        {"optimizer_step", step},
        {"model_type", model.modelType}};
    std::ofstream(tmp + "/checkpoint.json") << meta.dump(2) << "\n";
    if (!suffixes.empty())
      good &= mergeSafeTensors(tmp + "/optimizer.safetensors",
                               tmp + "/optimizer2.safetensors", localError);
    removeTree(final);
    if (good && std::rename(tmp.c_str(), final.c_str()) != 0) {
      localError = "cannot rename '" + tmp + "' to '" + final + "'";
      good = false;
    }
    if (good) {
      std::ofstream(dir + "/latest.tmp") << name << "\n";
      good &= std::rename((dir + "/latest.tmp").c_str(),
                          (dir + "/latest").c_str()) == 0;
    }
  }
  int all = good, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!every)
    error = localError.empty() ? "another rank failed to save the checkpoint"
                               : localError;
  return every;
}

bool sprt::resumeCheckpoint(const std::string &dir, const Model &model,
                            Params &params, const std::vector<float *> &state,
                            ResumePoint &at, std::string &error) {
  std::ifstream latest(dir + "/latest");
  std::string name;
  if (!latest || !(latest >> name)) {
    error = "--resume: no checkpoint in '" + dir + "' (no 'latest' file)";
    return false;
  }
  std::string path = dir + "/" + name;
  std::ifstream metaFile(path + "/checkpoint.json");
  json meta = json::parse(metaFile, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.contains("step") || !meta.contains("seed")) {
    error = "--resume: '" + path + "/checkpoint.json' is missing or invalid";
    return false;
  }
  if (meta.value("optimizer", std::string()) != model.optimizer) {
    error = "--resume: '" + path + "' was saved with optimizer '" +
            meta.value("optimizer", std::string()) +
            "' but this program uses '" + model.optimizer + "'";
    return false;
  }
  at.step = meta["step"].get<int64_t>();
  at.seed = meta["seed"].get<uint64_t>();
  if (!params.load(path + "/model.safetensors", error))
    return false;
  std::vector<int64_t> indices;
  std::vector<std::string> suffixes;
  std::vector<std::vector<float *>> views;
  stateViews(model, state, indices, suffixes, views);
  for (size_t k = 0; k < suffixes.size(); ++k)
    if (!Params::loadSharded(model, indices, suffixes[k], views[k],
                             path + "/optimizer.safetensors", error,
                             sliceAxes(model)))
      return false;
  return true;
}

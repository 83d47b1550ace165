//===- Checkpoint.cpp - save and resume training --------------------------===//

#include "Checkpoint.h"
#include "Failure.h"
#include "FileIO.h"
#include "SafeTensors.h"

#include "sprt/runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

using namespace sprt;
using nlohmann::json;

static const char kFormat[] = "seqpar-checkpoint";
static constexpr int64_t kFormatVersion = 3;
/// checkpoint.json is a few KiB; anything much larger is not one.
static constexpr std::streamsize kMaxMetaBytes = 64 << 20;

static std::string stepName(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", (long long)step);
  return buf;
}

static bool removeTree(const std::string &path) {
  // Only ever our own flat checkpoint directories: files, then the folder.
  for (const char *f :
       {"model.safetensors", "optimizer.safetensors", "optimizer2.safetensors",
        "checkpoint.json", "model.safetensors.tmp", "optimizer.safetensors.tmp",
        "optimizer2.safetensors.tmp", "checkpoint.json.tmp"})
    std::remove((path + "/" + f).c_str());
  return ::rmdir(path.c_str()) == 0 || errno == ENOENT;
}

int64_t sprt::checkpointBytes(const std::string &dir, int64_t step) {
  std::string path = dir + "/" + stepName(step);
  int64_t total = 0;
  bool any = false;
  for (const char *f :
       {"model.safetensors", "optimizer.safetensors", "checkpoint.json"}) {
    struct stat st;
    if (::stat((path + "/" + f).c_str(), &st) == 0) {
      total += int64_t(st.st_size);
      any = true;
    }
  }
  return any ? total : -1;
}

/// How each parameter's optimizer state is sliced (distributed optimizer).
static std::vector<Slicing> stateSlicings(const Model &model) {
  std::vector<Slicing> slicings;
  for (size_t i = 0; i < model.params.size(); ++i)
    slicings.push_back(model.stateSlicing(int64_t(i)));
  return slicings;
}

/// The state tensors of the optimizer, as (indices, suffix, pointers).
static void stateViews(const Model &model, const std::vector<float *> &state,
                       std::vector<int64_t> &indices,
                       std::vector<std::string> &suffixes,
                       std::vector<std::vector<float *>> &views) {
  if (model.optimizer != Optimizer::adamw)
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

/// What identifies the model a checkpoint belongs to.
static json identity(const Model &model) {
  json params = json::array();
  // A parameter with a master weight is saved as its master, in F32: a
  // checkpoint of a sharded-master run is one of the replicated-master run.
  for (const ParamInfo &p : model.params)
    params.push_back({{"name", p.name},
                      {"shape", p.shape},
                      {"dtype", dtypeName(p.master ? DType::F32 : p.dtype)}});
  return {{"model_type", model.modelType},
          {"dtype", model.precision()},
          {"parameters", params}};
}

bool sprt::saveCheckpoint(const std::string &dir, const ResumePoint &at,
                          const std::string &dataFile, const Model &model,
                          Params &params, const std::vector<float *> &state,
                          std::string &error) {
  bool root = sprt_world_rank() == 0;
  std::string name = stepName(at.step), tmp = dir + "/." + name + ".tmp",
              final = dir + "/" + name;
  std::string localError;
  bool ok = true;
  if (root) {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      localError = "cannot create the checkpoint directory '" + dir +
                   "': " + std::strerror(errno);
      ok = false;
    } else {
      removeTree(tmp);
      if (::mkdir(tmp.c_str(), 0755) != 0) {
        localError = "cannot create the checkpoint directory '" + tmp +
                     "': " + std::strerror(errno);
        ok = false;
      }
    }
  }
  if (!allAgree(ok)) {
    error =
        root ? localError
             : "rank 0 could not create the checkpoint directory '" + tmp + "'";
    return false;
  }
  // Every rank takes part in assembling the whole tensors; each file says
  // which step it belongs to.
  Metadata stepMeta{{"seqpar.step", std::to_string(at.step)}};
  // The parameters in F32 whatever the model's precision (the master
  // weights: kept as the parameters or, with a distributed optimizer, by
  // the optimizer: Params::value), with the model's precision recorded.
  Metadata modelMeta = stepMeta;
  modelMeta["seqpar.model_dtype"] = model.precision();
  bool good = params.dump(tmp + "/model.safetensors", localError, modelMeta,
                          /*finiteOnly=*/true,
                          std::vector<DType>(model.params.size(), DType::F32));
  std::vector<int64_t> indices;
  std::vector<std::string> suffixes;
  std::vector<std::vector<float *>> views;
  stateViews(model, state, indices, suffixes, views);
  if (good && !suffixes.empty()) {
    // One file with both moments: dump each, then merge the second into the
    // first.
    std::vector<const float *> m(views[0].begin(), views[0].end());
    std::vector<const float *> v(views[1].begin(), views[1].end());
    good = Params::dumpSharded(model, indices, suffixes[0], m,
                               tmp + "/optimizer.safetensors", localError,
                               stateSlicings(model), stepMeta, true) &&
           Params::dumpSharded(model, indices, suffixes[1], v,
                               tmp + "/optimizer2.safetensors", localError,
                               stateSlicings(model), stepMeta, true);
  }
  if (root && good) {
    // Dropout masks are functions of (seed, step) and batches of (seed,
    // sequence index): the random generator's state is the step and the
    // seed, the data position the sequences read so far.
    json meta = {{"format", kFormat},
                 {"format_version", kFormatVersion},
                 {"step", at.step},
                 {"seed", at.seed},
                 {"data", dataFile},
                 {"data_position",
                  {{"sequences_consumed", at.sequences},
                   {"data_seed", at.dataSeed},
                   {"epoch", at.epoch},
                   {"sample_index", at.sample},
                   {"samples_per_epoch", at.samplesPerEpoch}}},
                 {"rng",
                  {{"generator", "philox4x32-10"},
                   {"seed", at.seed},
                   {"counter", "global element index"}}},
                 {"optimizer", optimizerName(model.optimizer)},
                 {"optimizer_step", at.step - at.skipped},
                 {"skipped_steps", at.skipped},
                 {"schedule", scheduleToJson(at.schedule)},
                 {"model", identity(model)}};
    if (at.hasLossScale)
      meta["loss_scale"] = lossScaleToJson(at.lossScale);
    good = writeFileAtomically(tmp + "/checkpoint.json", meta.dump(2) + "\n",
                               localError);
    if (good && !suffixes.empty())
      good = mergeSafeTensors(tmp + "/optimizer.safetensors",
                              tmp + "/optimizer2.safetensors", localError);
    if (good) {
      removeTree(final);
      if (std::rename(tmp.c_str(), final.c_str()) != 0) {
        localError = "cannot rename '" + tmp + "' to '" + final +
                     "': " + std::strerror(errno);
        good = false;
      }
    }
    if (good)
      good = writeFileAtomically(dir + "/latest", name + "\n", localError);
  }
  if (allAgree(good))
    return true;
  if (root)
    removeTree(tmp);
  error =
      localError.empty() ? "rank 0 could not save the checkpoint" : localError;
  return false;
}

namespace {
/// Typed access to checkpoint.json: every missing or mistyped field is an
/// error naming the file and the field.
struct MetaReader {
  const json &meta;
  std::string file;
  std::string error;

  const json *field(const char *key, bool (json::*is)() const,
                    const char *what) {
    if (!error.empty())
      return nullptr;
    auto it = meta.find(key);
    if (it == meta.end())
      error = "'" + file + "': field '" + key + "' is missing";
    else if (!((*it).*is)())
      error = "'" + file + "': field '" + key + "' must be " + what + ", got " +
              it->dump();
    return error.empty() ? &*it : nullptr;
  }
  int64_t integer(const char *key) {
    const json *v =
        field(key, &json::is_number_integer, "a non-negative integer");
    if (v && (v->is_number_unsigned() ? v->get<uint64_t>() > INT64_MAX
                                      : v->get<int64_t>() < 0))
      error = "'" + file + "': field '" + key +
              "' must be a non-negative integer, got " + v->dump();
    return error.empty() && v ? v->get<int64_t>() : 0;
  }
  uint64_t unsignedInt(const char *key) {
    const json *v =
        field(key, &json::is_number_unsigned, "a non-negative integer");
    return v ? v->get<uint64_t>() : 0;
  }
  std::string string(const char *key) {
    const json *v = field(key, &json::is_string, "a string");
    return v ? v->get<std::string>() : std::string();
  }
};

std::string shapeText(const json &shape) { return shape.dump(); }

/// The first difference between the identity a checkpoint records and the
/// program's, or "".
std::string identityMismatch(const json &saved, const Model &model) {
  json mine = identity(model);
  if (!saved.is_object() || !saved.contains("model_type") ||
      !saved.contains("parameters") || !saved["parameters"].is_array())
    return "its field 'model' is not a model identity";
  if (saved["model_type"] != mine["model_type"])
    return "it is a " + saved["model_type"].dump() +
           " model, this program's is " + mine["model_type"].dump();
  // Checkpoints of format version 2 before the precision was recorded
  // come from F32 models.
  json dtype = saved.value("dtype", json("F32"));
  if (dtype != mine["dtype"])
    return "it was saved by a " + dtype.dump() +
           " model (its master weights in F32), this program's model is " +
           mine["dtype"].dump() +
           " (to change the precision, start a run with --init-from "
           "model.safetensors)";
  const json &a = saved["parameters"], &b = mine["parameters"];
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= a.size())
      return "it has no parameter " + b[i]["name"].dump();
    if (i >= b.size())
      return "it has a parameter " + a[i].value("name", json()).dump() +
             " this program does not";
    if (a[i] == b[i])
      continue;
    if (a[i].value("name", json()) != b[i]["name"])
      return "its parameter " + std::to_string(i) + " is " +
             a[i].value("name", json()).dump() + ", this program's is " +
             b[i]["name"].dump();
    return "parameter " + b[i]["name"].dump() + " is saved with shape " +
           shapeText(a[i].value("shape", json())) + " and dtype " +
           a[i].value("dtype", json()).dump() + ", this program's has " +
           shapeText(b[i]["shape"]) + " and " + b[i]["dtype"].dump();
  }
  return "";
}

/// Checks that the tensor file `file` was saved at `step`.
bool checkStep(const std::string &file, int64_t step, std::string &error) {
  Metadata metadata;
  if (!readMetadata(file, metadata, error))
    return false;
  auto it = metadata.find("seqpar.step");
  if (it == metadata.end() || it->second != std::to_string(step)) {
    error = "--resume: '" + file + "' was saved at step " +
            (it == metadata.end() ? std::string("(unknown)") : it->second) +
            ", not at the checkpoint's step " + std::to_string(step);
    return false;
  }
  return true;
}
} // namespace

bool sprt::resumeCheckpoint(const std::string &dir, const Model &model,
                            Params &params, const std::vector<float *> &state,
                            ResumePoint &at, std::string &error) {
  std::string latestFile = dir + "/latest";
  std::string name;
  std::ifstream latest;
  if (notRegularFile(latestFile).empty())
    latest.open(latestFile);
  if (!latest || !(latest >> name)) {
    error = "--resume: no checkpoint in '" + dir + "' (no 'latest' file)";
    return false;
  }
  if (!std::regex_match(name, std::regex("step-[0-9]{8,}"))) {
    error = "--resume: '" + latestFile +
            "' does not name a checkpoint (step-NNNNNNNN)";
    return false;
  }
  std::string path = dir + "/" + name, metaPath = path + "/checkpoint.json";
  std::string why = notRegularFile(metaPath);
  std::string text;
  if (why.empty()) {
    std::ifstream metaFile(metaPath);
    text.resize(size_t(kMaxMetaBytes) + 1);
    metaFile.read(text.data(), kMaxMetaBytes + 1);
    text.resize(size_t(metaFile.gcount()));
  }
  json meta = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!why.empty() || text.size() > size_t(kMaxMetaBytes) ||
      meta.is_discarded() || !meta.is_object()) {
    error = "--resume: '" + metaPath + "' is " +
            (!why.empty() ? "unreadable: " + why : "not a JSON object");
    return false;
  }
  MetaReader r{meta, metaPath, ""};
  std::string format = r.string("format");
  int64_t version = r.integer("format_version");
  if (r.error.empty() && (format != kFormat || version != kFormatVersion))
    r.error = "'" + metaPath + "' has format '" + format + "' version " +
              std::to_string(version) + "; this program reads '" + kFormat +
              "' version " + std::to_string(kFormatVersion);
  at.step = r.integer("step");
  at.seed = r.unsignedInt("seed");
  at.skipped = r.integer("skipped_steps");
  at.dataSeed = at.seed;
  at.sequences = -1;
  if (r.error.empty() && meta.contains("data_position") &&
      meta["data_position"].is_object() &&
      meta["data_position"].contains("data_seed")) {
    MetaReader d{meta["data_position"], metaPath + "': field 'data_position",
                 ""};
    at.dataSeed = d.unsignedInt("data_seed");
    at.epoch = d.integer("epoch");
    at.sample = d.integer("sample_index");
    at.samplesPerEpoch = d.integer("samples_per_epoch");
    at.sequences = d.integer("sequences_consumed");
    r.error = d.error;
  }
  std::string optimizer = r.string("optimizer");
  if (r.error.empty() && at.skipped > at.step)
    r.error = "'" + metaPath +
              "': field 'skipped_steps' = " + std::to_string(at.skipped) +
              " exceeds its step " + std::to_string(at.step);
  if (r.error.empty() && !meta.contains("model"))
    r.error = "'" + metaPath + "': field 'model' is missing";
  if (r.error.empty() && !meta.contains("schedule"))
    r.error = "'" + metaPath + "': field 'schedule' is missing";
  if (r.error.empty())
    scheduleFromJson(meta["schedule"], "'" + metaPath + "': field 'schedule",
                     at.schedule, r.error);
  bool scalesLoss = false;
  for (const auto &h : model.hyperparameters)
    scalesLoss |= h.first == kLossScaleName;
  if (r.error.empty() && scalesLoss != meta.contains("loss_scale"))
    r.error = "'" + metaPath + "' " +
              (scalesLoss ? "has no field 'loss_scale' (the loss scaler's "
                            "state) but this program scales its loss"
                          : "has a field 'loss_scale' but this program has no "
                            "loss scaling");
  at.hasLossScale = scalesLoss;
  if (r.error.empty() && scalesLoss)
    lossScaleFromJson(meta["loss_scale"],
                      "'" + metaPath + "': field 'loss_scale", at.step,
                      at.lossScale, r.error);
  if (!r.error.empty()) {
    error = "--resume: " + r.error;
    return false;
  }
  std::string mismatch = identityMismatch(meta["model"], model);
  if (!mismatch.empty()) {
    error = "--resume: '" + path + "' belongs to another model: " + mismatch;
    return false;
  }
  if (optimizer != optimizerName(model.optimizer)) {
    error = "--resume: '" + path + "' was saved with optimizer '" + optimizer +
            "' but this program uses '" + optimizerName(model.optimizer) + "'";
    return false;
  }
  if (!checkStep(path + "/model.safetensors", at.step, error) ||
      !params.load(path + "/model.safetensors", error))
    return false;
  std::vector<int64_t> indices;
  std::vector<std::string> suffixes;
  std::vector<std::vector<float *>> views;
  stateViews(model, state, indices, suffixes, views);
  if (!suffixes.empty() &&
      !checkStep(path + "/optimizer.safetensors", at.step, error))
    return false;
  for (size_t k = 0; k < suffixes.size(); ++k)
    if (!Params::loadSharded(model, indices, suffixes[k], views[k],
                             path + "/optimizer.safetensors", error,
                             stateSlicings(model)))
      return false;
  return true;
}

//===- HfExport.cpp - a Hugging Face model directory ----------------------===//

#include "HfExport.h"
#include "Failure.h"
#include "FileIO.h"

#include "sprt/runtime.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

using namespace sprt;
namespace fs = std::filesystem;
using json = nlohmann::json;

/// transformers' name of a dtype ("torch_dtype").
static const char *torchDtype(DType t) {
  switch (t) {
  case DType::BF16:
    return "bfloat16";
  case DType::F16:
    return "float16";
  default:
    return "float32";
  }
}

/// Rank 0's part before the tensors: the checks and the temporary
/// directory.
static bool prepare(const Model &model, const std::string &dir,
                    const std::string &tmp, std::string &error) {
  if (model.hfConfig.empty()) {
    error = "--export-hf: this program has no Hugging Face config (it was "
            "compiled from IR that sp-import did not write)";
    return false;
  }
  error = exportDirProblem(dir);
  if (!error.empty())
    return false;
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec)) {
    error = "--export-hf: cannot create '" + tmp + "': " + ec.message();
    return false;
  }
  return true;
}

/// Rank 0's part after the tensors: config.json, the index, the rename.
static bool finish(const Model &model, const std::string &dir,
                   const std::string &tmp, DType written,
                   const std::vector<std::string> &files,
                   const std::vector<std::vector<int64_t>> &shards,
                   int64_t totalBytes, std::string &error) {
  json config = json::parse(model.hfConfig);
  config["torch_dtype"] = torchDtype(written);
  if (!writeFileAtomically(tmp + "/config.json", config.dump(2) + "\n", error))
    return false;
  if (files.size() > 1) {
    json map = json::object();
    for (size_t s = 0; s < shards.size(); ++s)
      for (int64_t i : shards[s])
        map[model.params[size_t(i)].name] = files[s];
    json index = {{"metadata", {{"total_size", totalBytes}}},
                  {"weight_map", map}};
    if (!writeFileAtomically(tmp + "/model.safetensors.index.json",
                             index.dump(2) + "\n", error))
      return false;
  }
  // A previous export is moved aside, then removed once the new one is in
  // its place.
  std::error_code ec;
  std::string old = dir + ".old-export";
  fs::remove_all(old, ec);
  bool replacing = fs::exists(dir, ec);
  if (replacing && (fs::rename(dir, old, ec), ec)) {
    error = "--export-hf: cannot move the previous export '" + dir +
            "' aside: " + ec.message();
    return false;
  }
  if (fs::rename(tmp, dir, ec), ec) {
    error = "--export-hf: cannot rename '" + tmp + "' to '" + dir +
            "': " + ec.message();
    if (replacing)
      fs::rename(old, dir, ec);
    return false;
  }
  fs::remove_all(old, ec);
  return true;
}

bool sprt::exportHf(const Model &model, Params &params, const std::string &dir,
                    int64_t maxShardBytes, std::string &error) {
  bool root = sprt_world_rank() == 0;
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/')
    trimmed.pop_back();
  std::string tmp = trimmed + ".tmp-export";
  bool ok = !root || prepare(model, trimmed, tmp, error);
  if (!allAgree(ok)) {
    if (ok)
      error = "--export-hf: rank 0 could not prepare '" + dir + "'";
    return false;
  }
  // The model's precision, as --dump-params writes by default.
  std::vector<int64_t> all = allParams(model);
  std::vector<DType> written = dumpDTypes(model, all, "");
  DType common = written.empty() ? DType::F32 : written[0];
  for (DType t : written)
    if (t != common)
      common = DType::F32;
  if (common == DType::F32)
    written.assign(all.size(), DType::F32);
  std::vector<int64_t> bytes;
  int64_t total = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : model.params[i].shape)
      n *= d;
    bytes.push_back(n * int64_t(dtypeBytes(written[i])));
    total += bytes.back();
  }
  std::vector<std::vector<int64_t>> shards = planShards(bytes, maxShardBytes);
  std::vector<std::string> files;
  for (size_t s = 0; s < shards.size(); ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", s + 1,
                  shards.size());
    files.push_back(shards.size() == 1 ? "model.safetensors" : name);
    std::vector<const float *> local;
    std::vector<Slicing> slicings;
    TensorDTypes types;
    for (int64_t i : shards[s]) {
      // The parameter's value: its master weight when it has one.
      Params::Value v = params.value(i);
      local.push_back(v.data);
      slicings.push_back(v.slicing);
      types.stored.push_back(v.stored);
      types.written.push_back(written[size_t(i)]);
    }
    // transformers refuses a safetensors file without format "pt".
    if (!Params::dumpSharded(model, shards[s], "", local,
                             tmp + "/" + files.back(), error, slicings,
                             {{"format", "pt"}}, /*finiteOnly=*/true, types)) {
      if (root) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
      }
      return false;
    }
  }
  ok =
      !root || finish(model, trimmed, tmp, common, files, shards, total, error);
  if (root && !ok) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
  if (allAgree(ok))
    return true;
  if (ok)
    error = "--export-hf: rank 0 could not write '" + dir + "'";
  return false;
}

//===- HfExportPlan.cpp - the shards and directory of an export -----------===//
//
// The parts of --export-hf that need no ranks (tested without MPI).
//
//===----------------------------------------------------------------------===//

#include "HfExport.h"

#include <filesystem>
#include <regex>

using namespace sprt;
namespace fs = std::filesystem;

std::vector<std::vector<int64_t>>
sprt::planShards(const std::vector<int64_t> &bytes, int64_t maxBytes) {
  std::vector<std::vector<int64_t>> shards;
  int64_t used = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (shards.empty() || (used > 0 && used + bytes[i] > maxBytes)) {
      shards.emplace_back();
      used = 0;
    }
    shards.back().push_back(int64_t(i));
    used += bytes[i];
  }
  return shards;
}

/// A file an export writes.
static bool isExportFile(const std::string &name) {
  static const std::regex shard("model-[0-9]{5}-of-[0-9]{5}\\.safetensors");
  return name == "config.json" || name == "model.safetensors" ||
         name == "model.safetensors.index.json" ||
         std::regex_match(name, shard);
}

std::string sprt::exportDirProblem(const std::string &dir) {
  std::error_code ec;
  fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st))
    return "";
  if (!fs::is_directory(st))
    return "--export-hf: '" + dir + "' exists and is not a directory";
  bool any = false, config = false;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    any = true;
    config = config || name == "config.json";
    if (!isExportFile(name) || !e.is_regular_file())
      return "--export-hf: '" + dir +
             "' is not empty and not a previous export (it holds '" + name +
             "'): not replacing it";
  }
  if (ec)
    return "--export-hf: cannot read '" + dir + "': " + ec.message();
  if (any && !config)
    return "--export-hf: '" + dir +
           "' is not empty and not a previous export (no config.json): not "
           "replacing it";
  return "";
}

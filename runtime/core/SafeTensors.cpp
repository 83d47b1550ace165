//===- SafeTensors.cpp - read and write .safetensors files ----------------===//

#include "SafeTensors.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace sprt;
using nlohmann::json;

static bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

static std::string dirOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

static bool readHeader(const std::string &file,
                       std::map<std::string, TensorInfo> &tensors,
                       std::string &error) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    error = "cannot open checkpoint '" + file + "'";
    return false;
  }
  in.seekg(0, std::ios::end);
  uint64_t fileSize = uint64_t(in.tellg());
  in.seekg(0);
  unsigned char lenBytes[8];
  if (!in.read(reinterpret_cast<char *>(lenBytes), 8)) {
    error = "checkpoint '" + file + "' is too short to be a safetensors file";
    return false;
  }
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | lenBytes[i];
  if (headerLen > fileSize - 8) {
    error = "checkpoint '" + file + "' has a header longer than the file";
    return false;
  }
  std::string header(headerLen, '\0');
  in.read(header.data(), std::streamsize(headerLen));
  json j = json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    error = "checkpoint '" + file + "' has a malformed JSON header";
    return false;
  }
  for (auto &[name, entry] : j.items()) {
    if (name == "__metadata__")
      continue;
    TensorInfo info;
    try {
      info.dtype = entry.at("dtype").get<std::string>();
      info.shape = entry.at("shape").get<std::vector<int64_t>>();
      auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
      info.begin = 8 + headerLen + offsets.at(0);
      info.end = 8 + headerLen + offsets.at(1);
    } catch (const std::exception &) {
      error = "checkpoint '" + file + "': tensor '" + name +
              "' has a malformed header entry";
      return false;
    }
    if (info.end < info.begin || info.end > fileSize) {
      error = "checkpoint '" + file + "': tensor '" + name +
              "' lies outside the file";
      return false;
    }
    info.file = file;
    tensors[name] = info;
  }
  return true;
}

bool sprt::readCheckpointIndex(const std::string &path,
                               std::map<std::string, TensorInfo> &tensors,
                               std::string &error) {
  if (!endsWith(path, ".json"))
    return readHeader(path, tensors, error);
  std::ifstream in(path);
  if (!in) {
    error = "cannot open checkpoint index '" + path + "'";
    return false;
  }
  json index = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (index.is_discarded() || !index.contains("weight_map") ||
      !index["weight_map"].is_object()) {
    error = "checkpoint index '" + path + "' has no \"weight_map\" object";
    return false;
  }
  std::map<std::string, std::map<std::string, TensorInfo>> shards;
  for (auto &[name, file] : index["weight_map"].items()) {
    if (!file.is_string()) {
      error = "checkpoint index '" + path + "': entry '" + name +
              "' is not a file name";
      return false;
    }
    std::string shard = dirOf(path) + "/" + file.get<std::string>();
    if (!shards.count(shard) && !readHeader(shard, shards[shard], error))
      return false;
    auto it = shards[shard].find(name);
    if (it == shards[shard].end()) {
      error = "checkpoint shard '" + shard + "' has no tensor '" + name +
              "' although the index says so";
      return false;
    }
    tensors[name] = it->second;
  }
  return true;
}

bool sprt::readTensorData(const TensorInfo &info, std::vector<char> &data,
                          std::string &error) {
  std::ifstream in(info.file, std::ios::binary);
  data.resize(info.end - info.begin);
  in.seekg(std::streamoff(info.begin));
  if (!in || !in.read(data.data(), std::streamsize(data.size()))) {
    error = "cannot read tensor data from '" + info.file + "'";
    return false;
  }
  return true;
}

bool sprt::writeSafeTensors(const std::string &path,
                            const std::vector<TensorToWrite> &tensors,
                            std::string &error) {
  json header = json::object();
  uint64_t offset = 0;
  for (const TensorToWrite &t : tensors) {
    header[t.name] = {{"dtype", t.dtype},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes}}};
    offset += t.bytes;
  }
  header["__metadata__"] = {{"format", "pt"}, {"producer", "seqpar"}};
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0)
    text.push_back(' ');
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    unsigned char lenBytes[8];
    uint64_t len = text.size();
    for (int i = 0; i < 8; ++i)
      lenBytes[i] = (unsigned char)((len >> (8 * i)) & 0xff);
    out.write(reinterpret_cast<const char *>(lenBytes), 8);
    out.write(text.data(), std::streamsize(text.size()));
    for (const TensorToWrite &t : tensors)
      out.write(static_cast<const char *>(t.data), std::streamsize(t.bytes));
    out.flush();
    if (!out) {
      error = "cannot write '" + tmp + "'";
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path + "'";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

bool sprt::mergeSafeTensors(const std::string &into, const std::string &from,
                            std::string &error) {
  std::map<std::string, TensorInfo> tensors;
  if (!readHeader(into, tensors, error) || !readHeader(from, tensors, error))
    return false;
  std::vector<std::vector<char>> data;
  std::vector<TensorToWrite> out;
  data.reserve(tensors.size());
  for (auto &[name, info] : tensors) {
    data.emplace_back();
    if (!readTensorData(info, data.back(), error))
      return false;
    out.push_back(
        {name, info.dtype, info.shape, data.back().data(), data.back().size()});
  }
  if (!writeSafeTensors(into, out, error))
    return false;
  std::remove(from.c_str());
  return true;
}

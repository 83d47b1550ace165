//===- SafeTensors.cpp - read and write .safetensors files ----------------===//

#include "SafeTensors.h"
#include "FileIO.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <xxhash.h>

using namespace sprt;
using nlohmann::json;

/// The safetensors format's own bound on the header (the Rust reader's).
static constexpr uint64_t kMaxHeaderBytes = 100u << 20;
static const char kChecksumPrefix[] = "xxh3_64:";

static bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

static std::string dirOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

static std::string checksumOf(const void *data, size_t bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64,
                uint64_t(XXH3_64bits(data, bytes)));
  return hex;
}

/// Bytes of one element of a safetensors dtype, or 0 for a name this
/// reader does not size.
static uint64_t elementBytes(const std::string &dtype) {
  static const std::map<std::string, uint64_t> sizes = {
      {"F64", 8}, {"F32", 4}, {"F16", 2},  {"BF16", 2},    {"I64", 8},
      {"I32", 4}, {"I16", 2}, {"I8", 1},   {"U64", 8},     {"U32", 4},
      {"U16", 2}, {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

/// The safetensors library's rules for the data section: each tensor's
/// bytes are its shape's elements, and the tensors cover the data exactly,
/// one after another (no overlap, no gap, nothing after the last). "" or
/// what breaks them.
static std::string
layoutProblem(const std::string &file,
              const std::map<std::string, TensorInfo> &tensors,
              uint64_t dataStart, uint64_t dataBytes) {
  std::vector<const TensorInfo *> order;
  for (const auto &[name, t] : tensors) {
    if (t.file != file)
      continue;
    uint64_t size = elementBytes(t.dtype);
    uint64_t elements = 1;
    for (int64_t d : t.shape) {
      if (d < 0)
        return "checkpoint '" + file + "': tensor '" + name +
               "' has a negative dimension";
      elements *= uint64_t(d);
    }
    if (size && t.end - t.begin != elements * size)
      return "checkpoint '" + file + "': tensor '" + name + "' holds " +
             std::to_string(t.end - t.begin) + " bytes but its shape and " +
             t.dtype + " need " + std::to_string(elements * size);
    order.push_back(&t);
  }
  std::sort(
      order.begin(), order.end(), [](const TensorInfo *a, const TensorInfo *b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
      });
  uint64_t at = dataStart;
  const TensorInfo *previous = nullptr;
  for (const TensorInfo *t : order) {
    if (t->begin < at)
      return "checkpoint '" + file + "': the data of tensors '" +
             previous->name + "' and '" + t->name + "' overlap";
    if (t->begin > at)
      return "checkpoint '" + file + "': " + std::to_string(t->begin - at) +
             " bytes of data before tensor '" + t->name +
             "' belong to no tensor";
    at = t->end;
    previous = t;
  }
  if (at != dataStart + dataBytes)
    return "checkpoint '" + file + "': the last " +
           std::to_string(dataStart + dataBytes - at) +
           " bytes of data belong to no tensor";
  return "";
}

static bool readHeader(const std::string &file,
                       std::map<std::string, TensorInfo> &tensors,
                       std::string &error, Metadata *metadata = nullptr) {
  std::string why = notRegularFile(file);
  if (!why.empty()) {
    error = "cannot open checkpoint '" + file + "': " + why;
    return false;
  }
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
  if (headerLen > kMaxHeaderBytes) {
    error = "checkpoint '" + file + "' has a header of " +
            std::to_string(headerLen) + " bytes (at most " +
            std::to_string(kMaxHeaderBytes) + ")";
    return false;
  }
  std::string header(headerLen, '\0');
  in.read(header.data(), std::streamsize(headerLen));
  // A name given twice would silently keep its last entry (JSON objects
  // keep the last duplicate): refused, as the safetensors library does.
  std::set<std::string> names;
  std::string twice;
  json::parser_callback_t noDuplicates =
      [&](int depth, json::parse_event_t event, json &parsed) {
        if (event == json::parse_event_t::key && depth == 1 &&
            !names.insert(parsed.get<std::string>()).second && twice.empty())
          twice = parsed.get<std::string>();
        return true;
      };
  json j = json::parse(header, noDuplicates, /*allow_exceptions=*/false);
  if (!in || j.is_discarded() || !j.is_object()) {
    error = "checkpoint '" + file + "' has a malformed JSON header";
    return false;
  }
  if (!twice.empty()) {
    error = "checkpoint '" + file + "' names tensor '" + twice +
            "' twice in its header";
    return false;
  }
  uint64_t dataBytes = fileSize - 8 - headerLen;
  Metadata meta;
  if (j.contains("__metadata__")) {
    const json &m = j["__metadata__"];
    if (!m.is_object()) {
      error = "checkpoint '" + file + "': \"__metadata__\" is not an object";
      return false;
    }
    for (auto &[key, value] : m.items()) {
      if (!value.is_string()) {
        error =
            "checkpoint '" + file + "': metadata '" + key + "' is not a string";
        return false;
      }
      meta[key] = value.get<std::string>();
    }
  }
  for (auto &[name, entry] : j.items()) {
    if (name == "__metadata__")
      continue;
    TensorInfo info;
    uint64_t dataEnd = 0;
    try {
      info.dtype = entry.at("dtype").get<std::string>();
      info.shape = entry.at("shape").get<std::vector<int64_t>>();
      auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
      if (offsets.size() != 2 || offsets[1] < offsets[0])
        throw std::out_of_range("data_offsets");
      dataEnd = offsets[1];
      info.begin = 8 + headerLen + std::min(offsets[0], dataBytes);
      info.end = 8 + headerLen + std::min(offsets[1], dataBytes);
    } catch (const std::exception &) {
      error = "checkpoint '" + file + "': tensor '" + name +
              "' has a malformed header entry";
      return false;
    }
    if (dataEnd > dataBytes) {
      error = "checkpoint '" + file + "': tensor '" + name +
              "' lies outside the file (its data ends at offset " +
              std::to_string(dataEnd) + ", the file holds " +
              std::to_string(dataBytes) + " bytes of data: truncated?)";
      return false;
    }
    info.file = file;
    info.name = name;
    auto sum = meta.find(kChecksumPrefix + name);
    if (sum != meta.end())
      info.checksum = sum->second;
    tensors[name] = info;
  }
  error = layoutProblem(file, tensors, 8 + headerLen, dataBytes);
  if (!error.empty())
    return false;
  if (metadata)
    *metadata = std::move(meta);
  return true;
}

bool sprt::readMetadata(const std::string &file, Metadata &metadata,
                        std::string &error) {
  std::map<std::string, TensorInfo> tensors;
  return readHeader(file, tensors, error, &metadata);
}

bool sprt::readCheckpointIndex(const std::string &path,
                               std::map<std::string, TensorInfo> &tensors,
                               std::string &error) {
  if (!endsWith(path, ".json"))
    return readHeader(path, tensors, error);
  std::string why = notRegularFile(path);
  if (!why.empty()) {
    error = "cannot open checkpoint index '" + path + "': " + why;
    return false;
  }
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
  if (!info.checksum.empty()) {
    std::string actual = checksumOf(data.data(), data.size());
    if (actual != info.checksum) {
      error = "checkpoint '" + info.file + "': tensor '" + info.name +
              "' fails its checksum (stored xxh3_64 " + info.checksum +
              ", read " + actual + "): the file is corrupt";
      return false;
    }
  }
  return true;
}

std::string SafeTensorsWriter::header() const {
  json header = json::object();
  json meta = {{"format", "pt"}, {"producer", "seqpar"}};
  for (auto &[key, value] : metadata)
    meta[key] = value;
  uint64_t offset = 0;
  for (size_t k = 0; k < layout.size(); ++k) {
    const TensorToWrite &t = layout[k];
    header[t.name] = {{"dtype", t.dtype},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.bytes}}};
    meta[kChecksumPrefix + t.name] = checksums[k];
    offset += t.bytes;
  }
  header["__metadata__"] = meta;
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0)
    text.push_back(' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[size_t(i)] = char((uint64_t(text.size()) >> (8 * i)) & 0xff);
  return out + text;
}

bool SafeTensorsWriter::open(const std::string &path,
                             const std::vector<TensorToWrite> &tensors,
                             const Metadata &meta, std::string &error) {
  layout = tensors;
  metadata = meta;
  // Placeholders as long as a checksum: the final header is as long.
  checksums.assign(layout.size(), std::string(16, '0'));
  std::string text = header();
  checksums.clear();
  return file.open(path, error) && file.write(text.data(), text.size(), error);
}

bool SafeTensorsWriter::append(const void *data, uint64_t bytes,
                               std::string &error) {
  if (checksums.size() >= layout.size() ||
      bytes != layout[checksums.size()].bytes) {
    error = "internal error: a safetensors tensor of " + std::to_string(bytes) +
            " bytes out of its file's layout";
    return false;
  }
  checksums.push_back(checksumOf(data, bytes));
  return file.write(data, bytes, error);
}

bool SafeTensorsWriter::commit(std::string &error) {
  if (checksums.size() != layout.size()) {
    error = "internal error: a safetensors file committed with " +
            std::to_string(checksums.size()) + " of its " +
            std::to_string(layout.size()) + " tensors";
    return false;
  }
  std::string text = header();
  return file.writeAt(0, text.data(), text.size(), error) && file.commit(error);
}

bool sprt::writeSafeTensors(const std::string &path,
                            const std::vector<TensorToWrite> &tensors,
                            std::string &error, const Metadata &metadata) {
  SafeTensorsWriter out;
  if (!out.open(path, tensors, metadata, error))
    return false;
  for (const TensorToWrite &t : tensors)
    if (!out.append(t.data, t.bytes, error))
      return false;
  return out.commit(error);
}

bool sprt::mergeSafeTensors(const std::string &into, const std::string &from,
                            std::string &error) {
  std::map<std::string, TensorInfo> tensors;
  Metadata metadata;
  if (!readHeader(into, tensors, error, &metadata) ||
      !readHeader(from, tensors, error))
    return false;
  for (auto it = metadata.begin(); it != metadata.end();)
    it = it->first.rfind(kChecksumPrefix, 0) == 0 ? metadata.erase(it)
                                                  : std::next(it);
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
  if (!writeSafeTensors(into, out, error, metadata))
    return false;
  std::remove(from.c_str());
  return true;
}

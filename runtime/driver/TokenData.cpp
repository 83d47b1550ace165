//===- TokenData.cpp - memory-mapped tokenized datasets -------------------===//

#include "TokenData.h"
#include "FileIO.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sprt;
using nlohmann::json;

static const char *const kFormat = "seqpar-tokens";
static const int64_t kFormatVersion = 1;
/// A sidecar is a few hundred bytes; anything much larger is not one.
static const int64_t kMaxSidecarBytes = 1 << 20;

std::string sprt::tokenSidecar(const std::string &path) {
  return path + ".json";
}

bool sprt::hasTokenSidecar(const std::string &path) {
  struct stat st;
  return ::stat(tokenSidecar(path).c_str(), &st) == 0;
}

void TokenFile::close() {
  if (data && mappedBytes)
    ::munmap(const_cast<void *>(data), mappedBytes);
  data = nullptr;
  mappedBytes = 0;
}

/// A non-negative integer field of the sidecar, or -1 with `error` set.
static int64_t field(const json &meta, const char *name,
                     const std::string &where, std::string &error) {
  if (!error.empty())
    return -1;
  auto it = meta.find(name);
  if (it == meta.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
    error = where + ": field '" + name +
            (it == meta.end() ? "' is missing"
                              : "' must be a non-negative integer");
    return -1;
  }
  return it->get<int64_t>();
}

bool TokenFile::open(const std::string &path, int64_t modelVocab,
                     std::string &error) {
  close();
  file = path;
  const std::string sidecar = tokenSidecar(path);
  std::string why = notRegularFile(sidecar);
  if (!why.empty()) {
    error = "cannot read the sidecar '" + sidecar + "': " + why;
    return false;
  }
  std::string text(size_t(kMaxSidecarBytes) + 1, '\0');
  {
    std::ifstream in(sidecar, std::ios::binary);
    in.read(text.data(), kMaxSidecarBytes + 1);
    text.resize(size_t(in.gcount()));
  }
  json meta = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (text.size() > size_t(kMaxSidecarBytes) || meta.is_discarded() ||
      !meta.is_object()) {
    error = "the sidecar '" + sidecar + "' is not a JSON object";
    return false;
  }
  const std::string where = "the sidecar '" + sidecar + "'";
  auto format = meta.find("format");
  if (format == meta.end() || !format->is_string() ||
      format->get<std::string>() != kFormat) {
    error = where + ": field 'format' must be \"" + kFormat + "\"";
    return false;
  }
  int64_t version = field(meta, "format_version", where, error);
  if (error.empty() && version != kFormatVersion)
    error = where + " has format version " + std::to_string(version) +
            "; this program reads version " + std::to_string(kFormatVersion);
  auto dtype = meta.find("dtype");
  if (error.empty() && (dtype == meta.end() || !dtype->is_string()))
    error = where + ": field 'dtype' is missing";
  if (error.empty()) {
    std::string d = dtype->get<std::string>();
    if (d == "uint16")
      width = 2;
    else if (d == "uint32")
      width = 4;
    else
      error = where + ": unknown dtype '" + d + "' (uint16 or uint32)";
  }
  vocabSize = field(meta, "vocab_size", where, error);
  eosId = field(meta, "eos_id", where, error);
  numTokens = field(meta, "num_tokens", where, error);
  numDocuments = field(meta, "num_documents", where, error);
  if (error.empty() && eosId >= vocabSize)
    error = where + ": eos_id " + std::to_string(eosId) +
            " is not below vocab_size " + std::to_string(vocabSize);
  if (error.empty() && width == 2 && vocabSize > 65536)
    error = where + ": vocab_size " + std::to_string(vocabSize) +
            " does not fit dtype uint16";
  if (error.empty() && vocabSize > modelVocab)
    error = "the tokenized data '" + path + "' has vocab_size " +
            std::to_string(vocabSize) + " but the model's vocabulary has " +
            std::to_string(modelVocab) + " entries";
  if (!error.empty())
    return false;

  why = notRegularFile(path);
  if (!why.empty()) {
    error = "cannot read the data file '" + path + "': " + why;
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    error = "cannot read the data file '" + path + "': " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return false;
  }
  const uint64_t expected = uint64_t(numTokens) * uint64_t(width);
  if (uint64_t(st.st_size) != expected) {
    ::close(fd);
    error = "the data file '" + path + "' has " + std::to_string(st.st_size) +
            " bytes but its sidecar says " + std::to_string(numTokens) + " " +
            dtype->get<std::string>() + " tokens (" + std::to_string(expected) +
            " bytes)" +
            (uint64_t(st.st_size) < expected ? ": the file is truncated" : "");
    return false;
  }
  if (numTokens == 0) {
    ::close(fd);
    error = "the data file '" + path + "' has no tokens";
    return false;
  }
  void *p = ::mmap(nullptr, size_t(expected), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    error = "cannot map the data file '" + path + "': " + std::strerror(errno);
    return false;
  }
  data = p;
  mappedBytes = size_t(expected);
  // Every id below the model's vocabulary; the EOS ids count the documents.
  int64_t ends = 0;
  for (int64_t i = 0; i < numTokens; ++i) {
    int64_t id = (*this)[i];
    if (id >= modelVocab || id >= vocabSize) {
      error = "the data file '" + path + "' has token id " +
              std::to_string(id) + " at token offset " + std::to_string(i) +
              " (byte offset " + std::to_string(i * width) + "), not below " +
              (id >= modelVocab
                   ? "the model's vocabulary size " + std::to_string(modelVocab)
                   : "its sidecar's vocab_size " + std::to_string(vocabSize));
      close();
      return false;
    }
    ends += id == eosId;
  }
  if (ends != numDocuments) {
    error = "the data file '" + path + "' has " + std::to_string(ends) +
            " EOS tokens (id " + std::to_string(eosId) +
            ") but its sidecar says num_documents " +
            std::to_string(numDocuments);
    close();
    return false;
  }
  return true;
}

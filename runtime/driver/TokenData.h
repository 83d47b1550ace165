//===- TokenData.h - memory-mapped tokenized datasets -----------*- C++ -*-===//
//
// A tokenized dataset is a flat binary file FILE of token ids (little-endian
// uint16 or uint32, no header) and a JSON sidecar FILE.json written by
// scripts/prepare-data.py:
//
//   {"format": "seqpar-tokens", "format_version": 1, "dtype": "uint16",
//    "vocab_size": 50257, "eos_id": 50256, "num_tokens": 123456,
//    "num_documents": 42, "tokenizer": "..."}
//
// Every document ends with the EOS id, so the EOS tokens define the
// documents (no offsets are stored). The file is mapped read-only; open()
// checks the sidecar (format, version, dtype, counts), that the file's size
// is num_tokens ids of the dtype, and that every id is below the model's
// vocabulary (the error names the file and the first bad token's offset).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_TOKENDATA_H
#define SPRT_DRIVER_TOKENDATA_H

#include <cstdint>
#include <string>

namespace sprt {

/// The sidecar of a tokenized dataset: FILE + ".json".
std::string tokenSidecar(const std::string &path);

/// Whether `path` has a sidecar (a tokenized dataset rather than raw text).
bool hasTokenSidecar(const std::string &path);

class TokenFile {
public:
  TokenFile() = default;
  TokenFile(const TokenFile &) = delete;
  TokenFile &operator=(const TokenFile &) = delete;
  ~TokenFile() { close(); }

  /// Maps `path` and checks it against its sidecar and the model's
  /// vocabulary `modelVocab`. False with `error` set.
  bool open(const std::string &path, int64_t modelVocab, std::string &error);
  void close();

  int64_t size() const { return numTokens; }
  int64_t operator[](int64_t i) const {
    return width == 2 ? int64_t(static_cast<const uint16_t *>(data)[i])
                      : int64_t(static_cast<const uint32_t *>(data)[i]);
  }
  int64_t eos() const { return eosId; }
  int64_t vocab() const { return vocabSize; }
  int64_t documents() const { return numDocuments; }
  const std::string &path() const { return file; }

private:
  std::string file;
  const void *data = nullptr;
  size_t mappedBytes = 0;
  int width = 2;
  int64_t numTokens = 0, vocabSize = 0, eosId = -1, numDocuments = 0;
};

} // namespace sprt

#endif // SPRT_DRIVER_TOKENDATA_H

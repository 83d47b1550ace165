//===- ConfigReader.h - typed, checked access to config.json ----*- C++ -*-===//

#ifndef SEQPAR_LIB_IMPORT_CONFIGREADER_H
#define SEQPAR_LIB_IMPORT_CONFIGREADER_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace seqpar {

/// Reads fields of a Hugging Face config. The first problem is recorded as a
/// one-line message naming the field; later reads return harmless defaults so
/// callers can read everything and check `failed()` once.
class ConfigReader {
public:
  ConfigReader(const llvm::json::Object &object, llvm::StringRef source)
      : object(object), source(source.str()) {}

  /// A required integer >= 1.
  int64_t positiveInt(llvm::StringRef key);
  /// An optional integer >= 1 (absent or null gives `fallback`).
  int64_t positiveInt(llvm::StringRef key, int64_t fallback);
  /// An optional number > 0.
  double positive(llvm::StringRef key, double fallback);
  /// An optional probability in [0, 1).
  double probability(llvm::StringRef key, double fallback);
  /// An optional number in [0, 1].
  double fraction(llvm::StringRef key, double fallback);
  bool boolean(llvm::StringRef key, bool fallback);
  /// An optional string; std::nullopt if absent or null.
  std::optional<std::string> string(llvm::StringRef key);
  /// The field must be absent, null or equal to `expected`: seqpar does not
  /// implement the other values.
  void requireBool(llvm::StringRef key, bool expected, llvm::StringRef why);
  /// The field must be absent or null.
  void requireNull(llvm::StringRef key, llvm::StringRef why);

  /// Records an error about `key` unless one is recorded already.
  void fail(llvm::StringRef key, const llvm::Twine &message);
  bool failed() const { return !error.empty(); }
  const std::string &getError() const { return error; }

private:
  const llvm::json::Value *lookup(llvm::StringRef key) const;

  const llvm::json::Object &object;
  std::string source;
  std::string error;
};

} // namespace seqpar

#endif // SEQPAR_LIB_IMPORT_CONFIGREADER_H

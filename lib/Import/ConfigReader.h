//===- ConfigReader.h - typed, checked access to config.json ----*- C++ -*-===//

#ifndef SEQPAR_LIB_IMPORT_CONFIGREADER_H
#define SEQPAR_LIB_IMPORT_CONFIGREADER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace seqpar {

/// One dimension of a tensor the importer builds, with the input it comes
/// from, so that a shape whose size overflows names that input.
struct Dim {
  int64_t value = 1;
  /// How the dimension reads in a shape: "n_embd", "3 * n_embd", "--batch".
  std::string name;
  /// The config field or flag (spelled "--batch") to blame, and its value.
  std::string origin;
  int64_t originValue = 1;
};

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
  /// A required layer count in [1, kMaxLayers].
  int64_t layerCount(llvm::StringRef key);
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
  /// Records "<input> = <value> <message>" for a field or a flag ("--batch").
  void failInput(llvm::StringRef origin, int64_t value,
                 const llvm::Twine &message);

  /// Field `key`, read as `value`, as a dimension.
  static Dim dim(llvm::StringRef key, int64_t value) {
    return {value, key.str(), key.str(), value};
  }
  /// `factor * d`; records an error naming d's input if it overflows int64.
  Dim scaled(int64_t factor, const Dim &d);
  /// `a * b`; records an error naming the larger input if it overflows.
  Dim product(const Dim &a, const Dim &b);
  /// The number of elements of tensor `what` (e.g. "parameter 'wte.weight'")
  /// of shape `dims`. If it, or its size in bytes at `elementBytes` each, is
  /// not below 2^63, records an error naming the largest input and returns 0.
  int64_t elements(const llvm::Twine &what, llvm::ArrayRef<Dim> dims,
                   int64_t elementBytes);
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

//===- ConfigReader.cpp - typed, checked access to config.json ------------===//

#include "ConfigReader.h"

#include "llvm/Support/raw_ostream.h"

using namespace seqpar;
using llvm::json::Value;

static std::string describe(const Value &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  return s;
}

const Value *ConfigReader::lookup(llvm::StringRef key) const {
  const Value *v = object.get(key);
  if (!v || v->kind() == Value::Null)
    return nullptr;
  return v;
}

void ConfigReader::fail(llvm::StringRef key, const llvm::Twine &message) {
  if (failed())
    return;
  error = (source + ": field '" + key + "' " + message).str();
}

int64_t ConfigReader::positiveInt(llvm::StringRef key) {
  if (!lookup(key)) {
    fail(key, "is missing");
    return 1;
  }
  return positiveInt(key, 1);
}

int64_t ConfigReader::positiveInt(llvm::StringRef key, int64_t fallback) {
  const Value *v = lookup(key);
  if (!v)
    return fallback;
  std::optional<int64_t> i = v->getAsInteger();
  if (!i || *i < 1) {
    fail(key, "must be a positive integer, got " + describe(*v));
    return 1;
  }
  return *i;
}

double ConfigReader::positive(llvm::StringRef key, double fallback) {
  const Value *v = lookup(key);
  if (!v)
    return fallback;
  std::optional<double> d = v->getAsNumber();
  if (!d || !(*d > 0.0)) {
    fail(key, "must be a number > 0, got " + describe(*v));
    return fallback;
  }
  return *d;
}

double ConfigReader::probability(llvm::StringRef key, double fallback) {
  const Value *v = lookup(key);
  if (!v)
    return fallback;
  std::optional<double> d = v->getAsNumber();
  if (!d || !(*d >= 0.0 && *d < 1.0)) {
    fail(key, "must be a probability in [0, 1), got " + describe(*v));
    return 0.0;
  }
  return *d;
}

double ConfigReader::fraction(llvm::StringRef key, double fallback) {
  const Value *v = lookup(key);
  if (!v)
    return fallback;
  std::optional<double> d = v->getAsNumber();
  if (!d || !(*d >= 0.0 && *d <= 1.0)) {
    fail(key, "must be a number in [0, 1], got " + describe(*v));
    return fallback;
  }
  return *d;
}

bool ConfigReader::boolean(llvm::StringRef key, bool fallback) {
  const Value *v = lookup(key);
  if (!v)
    return fallback;
  std::optional<bool> b = v->getAsBoolean();
  if (!b) {
    fail(key, "must be true or false, got " + describe(*v));
    return fallback;
  }
  return *b;
}

std::optional<std::string> ConfigReader::string(llvm::StringRef key) {
  const Value *v = lookup(key);
  if (!v)
    return std::nullopt;
  std::optional<llvm::StringRef> s = v->getAsString();
  if (!s) {
    fail(key, "must be a string, got " + describe(*v));
    return std::nullopt;
  }
  return s->str();
}

void ConfigReader::requireBool(llvm::StringRef key, bool expected,
                               llvm::StringRef why) {
  if (lookup(key) && boolean(key, expected) != expected)
    fail(key, llvm::Twine("= ") + (expected ? "false" : "true") +
                  " is not supported: " + why);
}

void ConfigReader::requireNull(llvm::StringRef key, llvm::StringRef why) {
  if (const Value *v = lookup(key))
    fail(key, "= " + describe(*v) + " is not supported: " + why);
}

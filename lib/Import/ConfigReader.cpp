//===- ConfigReader.cpp - typed, checked access to config.json ------------===//

#include "ConfigReader.h"

#include "seqpar/Import/HFImport.h"

#include "llvm/Support/CheckedArithmetic.h"
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

void ConfigReader::failInput(llvm::StringRef origin, int64_t value,
                             const llvm::Twine &message) {
  if (failed())
    return;
  if (origin.starts_with("--"))
    error = (origin + " = " + llvm::Twine(value) + " " + message).str();
  else
    fail(origin, "= " + llvm::Twine(value) + " " + message);
}

Dim ConfigReader::scaled(int64_t factor, const Dim &d) {
  std::string name = (llvm::Twine(factor) + " * " + d.name).str();
  std::optional<int64_t> value = llvm::checkedMul(factor, d.value);
  if (!value) {
    failInput(d.origin, d.originValue,
              "is too large: " + name + " is 2^63 or more");
    return {1, name, d.origin, d.originValue};
  }
  return {*value, name, d.origin, d.originValue};
}

Dim ConfigReader::product(const Dim &a, const Dim &b) {
  const Dim &blame = b.originValue > a.originValue ? b : a;
  std::string name = a.name + " * " + b.name;
  std::optional<int64_t> value = llvm::checkedMul(a.value, b.value);
  if (!value) {
    failInput(blame.origin, blame.originValue,
              "is too large: " + name + " is 2^63 or more");
    return {1, name, blame.origin, blame.originValue};
  }
  return {*value, name, blame.origin, blame.originValue};
}

int64_t ConfigReader::elements(const llvm::Twine &what,
                               llvm::ArrayRef<Dim> dims, int64_t elementBytes) {
  std::optional<int64_t> count = 1;
  for (const Dim &d : dims)
    if (count)
      count = llvm::checkedMul(*count, d.value);
  std::optional<int64_t> bytes =
      count ? llvm::checkedMul(*count, elementBytes) : std::nullopt;
  if (bytes)
    return *count;

  // Blame the largest input: the one a user most likely got wrong.
  const Dim *blame = &dims.front();
  for (const Dim &d : dims)
    if (d.originValue > blame->originValue)
      blame = &d;
  std::string shape;
  llvm::raw_string_ostream os(shape);
  os << "[";
  llvm::interleaveComma(dims, os, [&](const Dim &d) { os << d.name; });
  os << "] = [";
  llvm::interleaveComma(dims, os, [&](const Dim &d) { os << d.value; });
  os << "]";
  if (!count)
    failInput(blame->origin, blame->originValue,
              "is too large: " + what + " " + shape +
                  " has 2^63 or more elements");
  else
    failInput(blame->origin, blame->originValue,
              "is too large: " + what + " " + shape + " has " +
                  llvm::Twine(*count) + " elements of " +
                  llvm::Twine(elementBytes) +
                  " bytes, which is 2^63 bytes or more");
  return 0;
}

int64_t ConfigReader::layerCount(llvm::StringRef key) {
  int64_t layers = positiveInt(key);
  if (layers > kMaxLayers) {
    fail(key, "= " + llvm::Twine(layers) + " is more than " +
                  llvm::Twine(kMaxLayers) +
                  ", the most layers sp-import builds");
    return 1;
  }
  return layers;
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
  // json::Value::getAsInteger converts a double of exactly 2^63 to int64_t,
  // which overflows: such doubles are refused here first.
  std::optional<double> d = v->getAsNumber();
  bool tooLarge = d && !v->getAsUINT64() && !(*d < 0x1p63);
  std::optional<int64_t> i = tooLarge ? std::nullopt : v->getAsInteger();
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

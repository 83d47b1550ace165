//===- DType.cpp - element types of checkpoints and dumps -----------------===//

#include "DType.h"

#include "sprt/dtype.h"

#include <cctype>
#include <cmath>
#include <cstring>

using namespace sprt;
using namespace sprt::dtype;

const char *sprt::dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "F32";
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  case DType::F64:
    return "F64";
  }
  return "?";
}

bool sprt::dtypeNamed(const std::string &name, DType &t) {
  for (DType d : {DType::F32, DType::BF16, DType::F16, DType::F64})
    if (name == dtypeName(d)) {
      t = d;
      return true;
    }
  return false;
}

bool sprt::dtypeOfFlag(const std::string &value, DType &t) {
  for (DType d : {DType::F32, DType::BF16, DType::F16}) {
    std::string lower = dtypeName(d);
    for (char &c : lower)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    if (value == lower) {
      t = d;
      return true;
    }
  }
  return false;
}

size_t sprt::dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
    return 4;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::F64:
    return 8;
  }
  return 0;
}

float sprt::f64ToF32RoundToOdd(double x) {
  float f = float(x); // nearest even
  if (std::isnan(x) || double(f) == x)
    return f;
  // Inexact (or an overflow to inf): truncate toward zero, mark the rest.
  if (std::fabs(double(f)) > std::fabs(x))
    f = std::nextafter(f, 0.0f);
  return floatOf(bitsOf(f) | 1u);
}

double sprt::elementAt(DType t, const void *data, int64_t i) {
  switch (t) {
  case DType::F32: {
    float x;
    std::memcpy(&x, static_cast<const char *>(data) + 4 * i, 4);
    return x;
  }
  case DType::F64: {
    double x;
    std::memcpy(&x, static_cast<const char *>(data) + 8 * i, 8);
    return x;
  }
  case DType::BF16:
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, static_cast<const char *>(data) + 2 * i, 2);
    return t == DType::BF16 ? bf16ToF32(h) : f16ToF32(h);
  }
  }
  return 0.0;
}

int64_t sprt::firstNonFinite(DType t, const void *data, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(elementAt(t, data, i)))
      return i;
  return -1;
}

namespace {
/// Stores f32 `x` as element `i` of a buffer of type `t` (not F64).
inline void storeF32(DType t, void *to, int64_t i, float x) {
  char *at = static_cast<char *>(to) + int64_t(dtypeBytes(t)) * i;
  if (t == DType::F32) {
    std::memcpy(at, &x, 4);
    return;
  }
  uint16_t h = t == DType::BF16 ? f32ToBf16(x) : f32ToF16(x);
  std::memcpy(at, &h, 2);
}
} // namespace

void sprt::convertElements(DType fromType, const void *from, DType toType,
                           void *to, int64_t n) {
  if (fromType == toType) {
    std::memcpy(to, from, size_t(n) * dtypeBytes(toType));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    // Every type but F64 widens to F32 exactly.
    double x = elementAt(fromType, from, i);
    if (toType == DType::F64) {
      std::memcpy(static_cast<char *>(to) + 8 * i, &x, 8);
      continue;
    }
    float f = fromType != DType::F64 ? float(x)
              : toType == DType::F32 ? float(x) // one rounding: nearest even
                                     : f64ToF32RoundToOdd(x);
    storeF32(toType, to, i, f);
  }
}

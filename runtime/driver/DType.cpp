//===- DType.cpp - element types of checkpoints and dumps -----------------===//

#include "DType.h"

#include <algorithm>

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

/// The first of `n` elements of `bits` (one element type's bit patterns)
/// whose exponent field is all ones (an infinity or a NaN), or -1: blocks
/// are scanned without branches (vectorised), the element found in the
/// first block that has one.
template <typename Bits>
static int64_t firstAllOnesExponent(const void *data, int64_t n,
                                    Bits exponent) {
  const Bits *bits = static_cast<const Bits *>(data);
  constexpr int64_t kBlock = 4096;
  for (int64_t first = 0; first < n; first += kBlock) {
    int64_t end = std::min(n, first + kBlock);
    Bits any = 0;
    for (int64_t i = first; i < end; ++i)
      any |= Bits((bits[i] & exponent) == exponent);
    if (!any)
      continue;
    for (int64_t i = first; i < end; ++i)
      if ((bits[i] & exponent) == exponent)
        return i;
  }
  return -1;
}

int64_t sprt::firstNonFinite(DType t, const void *data, int64_t n) {
  switch (t) {
  case DType::F32:
    return firstAllOnesExponent<uint32_t>(data, n, 0x7f800000u);
  case DType::BF16:
    return firstAllOnesExponent<uint16_t>(data, n, 0x7f80u);
  case DType::F16:
    return firstAllOnesExponent<uint16_t>(data, n, 0x7c00u);
  case DType::F64:
    break;
  }
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

//===- DType.h - element types of checkpoints and dumps ---------*- C++ -*-===//
//
// The floating-point element types a checkpoint may hold (safetensors names
// F32, BF16, F16, F64), a parameter may be stored in (the "dtype" of each
// parameter in the model JSON: the element type the compiler gave it) and a
// dump may be written in, and the conversion of whole buffers between them:
// exact when widening, round to nearest even when narrowing, with one
// rounding only (F64 into BF16 or F16 goes through F32 rounded to odd, which
// has enough bits that the final rounding is the direct one). The element
// conversions are sprt/dtype.h's, shared with the device kernels.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_DTYPE_H
#define SPRT_DRIVER_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace sprt {

enum class DType { F32, BF16, F16, F64 };

/// The safetensors name: "F32", "BF16", "F16", "F64".
const char *dtypeName(DType t);
/// The type of a safetensors name; false for any other name ("I32", ...).
bool dtypeNamed(const std::string &name, DType &t);
/// The type of a flag value "f32", "bf16", "f16" (lower case); false for
/// any other.
bool dtypeOfFlag(const std::string &value, DType &t);
/// Bytes of one element.
size_t dtypeBytes(DType t);

/// Converts `n` elements at `from` (of type `fromType`) to `toType` at `to`
/// (round to nearest even when narrowing; `to` must not overlap `from`).
void convertElements(DType fromType, const void *from, DType toType, void *to,
                     int64_t n);

/// Element `i` of a buffer of type `t`, as a double (exact).
double elementAt(DType t, const void *data, int64_t i);

/// The index of the first NaN or Inf among `n` elements of type `t`, or -1.
int64_t firstNonFinite(DType t, const void *data, int64_t n);

/// f64 -> f32 rounded to odd: truncated toward zero, then the last bit set
/// if anything was dropped (an overflow gives the largest finite f32 with
/// the last bit set; NaN and the infinities stay). Rounding this to nearest
/// even in any format with at most 22 mantissa bits rounds the f64 once.
float f64ToF32RoundToOdd(double x);

} // namespace sprt

#endif // SPRT_DRIVER_DTYPE_H

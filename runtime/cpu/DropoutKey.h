//===- DropoutKey.h - the key of a dropout draw (CPU) ------------*- C++
//-*-===//
//
// The dropout kernels draw with their `seed` XOR the step's dropout salt
// (sprt/device.h's sprt_step_values), which the CUDA kernels read on the
// device: the same masks on both backends.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CPU_DROPOUTKEY_H
#define SPRT_CPU_DROPOUTKEY_H

#include "sprt/device.h"

#include <cstdint>

namespace sprt::cpu {

inline uint64_t dropoutKey(uint64_t seed) {
  static sprt_step_values *const values = sprt_step_values_host();
  return seed ^ values->dropout_salt;
}

} // namespace sprt::cpu

#endif // SPRT_CPU_DROPOUTKEY_H

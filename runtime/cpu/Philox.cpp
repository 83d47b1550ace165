//===- Philox.cpp - counter-based random numbers --------------------------===//
//
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy
// as 1, 2, 3", SC 2011), the uniform and normal draws built on it, and the
// FNV-1a name hash that turns a parameter name into a random stream.
//
// A draw is a pure function of (seed, stream, index): the counter is
// {index lo, index hi, stream lo, stream hi} and the key {seed lo, seed hi}.
// A sharded tensor therefore draws exactly the slice of the unsharded one's
// numbers as long as it passes global element indices.
//
//===----------------------------------------------------------------------===//

#include "sprt/philox.h"
#include "sprt/kernels.h"

// The generator itself is in sprt/philox.h, shared with the CUDA backend's
// kernels; these are its C entry points.

extern "C" {

void sprt_philox4x32(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]) {
  sprt::philox::philox4x32(counter, key, out);
}

float sprt_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  return sprt::philox::uniform(seed, stream, index);
}

float sprt_normal(uint64_t seed, uint64_t stream, uint64_t index) {
  return sprt::philox::normal(seed, stream, index);
}

uint64_t sprt_hash_name(const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = reinterpret_cast<const unsigned char *>(name);
       *p; ++p) {
    h ^= uint64_t(*p);
    h *= 0x100000001b3ull;
  }
  return h;
}

} // extern "C"

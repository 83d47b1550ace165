//===- PhiloxNvccDraws.cu - sprt/philox.h compiled by nvcc ----------------===//
//
// Host code compiled by nvcc (its host pass, with __CUDACC__ defined, so
// SPRT_HOST_DEVICE is __host__ __device__): the draws PhiloxHostDeviceTest
// compares bit for bit with the C++-compiled sprt_uniform / sprt_normal /
// sprt_philox4x32 of the CPU backend. Runs without a GPU.
//
//===----------------------------------------------------------------------===//

#include "sprt/philox.h"

#ifndef __CUDACC__
#error "this file must be compiled by nvcc"
#endif

extern "C" void sprt_test_nvcc_philox_draws(uint64_t seed, uint64_t stream,
                                            uint64_t first, int64_t n,
                                            float *uniforms, float *normals,
                                            uint32_t *words) {
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t index = first + uint64_t(i) * 0x9E3779B97F4A7C15ull;
    uniforms[i] = sprt::philox::uniform(seed, stream, index);
    normals[i] = sprt::philox::normal(seed, stream, index);
    const uint32_t counter[4] = {uint32_t(index), uint32_t(index >> 32),
                                 uint32_t(stream), uint32_t(i)};
    const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
    sprt::philox::philox4x32(counter, key, words + 4 * i);
  }
}

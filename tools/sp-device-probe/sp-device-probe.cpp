//===- sp-device-probe.cpp - is there a GPU the cuda backend can use? -----===//
//
//   sp-device-probe
//
// Initialises the cuda backend on device 0 as a compiled program does
// (sprt_device_init) and prints either the number of CUDA devices (exit 0)
// or the backend's error, e.g. the CUDA error of a machine without a GPU
// (exit 1). The test suite uses it to decide whether the GPU tests run and,
// when they cannot, to give the reason they are skipped.
//
//===----------------------------------------------------------------------===//

#include "sprt/device.h"

#include <cstdio>
#include <cuda_runtime_api.h>

int main() {
  if (const char *error = sprt_device_init(0)) {
    std::printf("%s backend: %s\n", sprt_backend_name(), error);
    return 1;
  }
  int count = 0;
  cudaGetDeviceCount(&count);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s backend: %d device(s); device 0: %s (sm_%d%d)\n",
              sprt_backend_name(), count, prop.name, prop.major, prop.minor);
  return 0;
}

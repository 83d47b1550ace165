//===- Convert.cu - CUDA element-type conversion --------------------------===//
//
// sprt_convert (sprt/kernels.h) on the compute stream over sprt/dtype.h's
// host/device element conversions, the bits of the CPU backend's
// Convert.cpp. Four elements per thread (one 16-byte f32 or 8-byte 16-bit
// access per side, element types fixed at compile time) where both
// pointers allow; the elements past the last group of four, and unaligned
// buffers, one per thread with the types read per element.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "Quad.cuh"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>

using namespace sprt::cuda;

namespace {

__global__ void convertKernel(const void *__restrict__ in, int32_t inType,
                              void *__restrict__ out, int32_t outType,
                              int64_t n) {
  SPRT_FOR_EACH(i, n) {
    storeElement(out, outType, i, loadElement(in, inType, i));
  }
}

template <int32_t In, int32_t Out>
__global__ void convertQuads(const void *__restrict__ in,
                             void *__restrict__ out, int64_t quads) {
  SPRT_FOR_EACH(j, quads) {
    float v[4];
    Quad<In>::load(in, j, v);
    Quad<Out>::store(out, j, v);
  }
}

/// Launches convertQuads<In, Out> over `quads` groups of four.
template <int32_t In>
void launchQuads(const void *in, void *out, int32_t outType, int64_t quads) {
  if (outType == SPRT_DTYPE_F32)
    SPRT_LAUNCH((convertQuads<In, SPRT_DTYPE_F32>), quads, in, out, quads);
  else if (outType == SPRT_DTYPE_BF16)
    SPRT_LAUNCH((convertQuads<In, SPRT_DTYPE_BF16>), quads, in, out, quads);
  else
    SPRT_LAUNCH((convertQuads<In, SPRT_DTYPE_F16>), quads, in, out, quads);
}

/// Whether p can be accessed four elements of type t at a time.
bool quadAligned(const void *p, int32_t t) {
  return reinterpret_cast<uintptr_t>(p) % (4 * elementBytes(t)) == 0;
}

} // namespace

/// Aborts on an element type code sprt_convert does not know, naming `fn`.
void sprt::cuda::checkDtypeCode(int32_t t, const char *fn) {
  if (t == SPRT_DTYPE_F32 || t == SPRT_DTYPE_BF16 || t == SPRT_DTYPE_F16)
    return;
  std::fprintf(stderr, "%s: unknown element type code %d\n", fn, int(t));
  std::abort();
}

extern "C" void sprt_convert(const void *in, int32_t in_dtype, void *out,
                             int32_t out_dtype, int64_t n) {
  checkDtypeCode(in_dtype, "sprt_convert");
  checkDtypeCode(out_dtype, "sprt_convert");
  if (n <= 0)
    return;
  if (in_dtype == out_dtype) {
    const size_t bytes = size_t(n) * (in_dtype == SPRT_DTYPE_F32 ? 4 : 2);
    SPRT_CUDA_CHECK(
        cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream()));
    return;
  }
  int64_t quads = 0;
  if (quadAligned(in, in_dtype) && quadAligned(out, out_dtype)) {
    quads = n / 4;
    if (in_dtype == SPRT_DTYPE_F32)
      launchQuads<SPRT_DTYPE_F32>(in, out, out_dtype, quads);
    else if (in_dtype == SPRT_DTYPE_BF16)
      launchQuads<SPRT_DTYPE_BF16>(in, out, out_dtype, quads);
    else
      launchQuads<SPRT_DTYPE_F16>(in, out, out_dtype, quads);
  }
  const int64_t done = 4 * quads, rest = n - done;
  const void *inRest =
      static_cast<const char *>(in) + done * elementBytes(in_dtype);
  void *outRest = static_cast<char *>(out) + done * elementBytes(out_dtype);
  SPRT_LAUNCH(convertKernel, rest, inRest, in_dtype, outRest, out_dtype, rest);
}

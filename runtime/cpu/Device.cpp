//===- Device.cpp - the CPU backend's memory and stream -------------------===//
//
// Host memory, and a stream that runs every call to completion before it
// returns: the in-order queue semantics of sprt/device.h with nothing left to
// wait for.
//
//===----------------------------------------------------------------------===//

#include "sprt/device.h"

#include <cstdlib>
#include <cstring>

struct sprt_stream {};

extern "C" const char *sprt_backend_name(void) { return "cpu"; }

extern "C" const char *sprt_device_init(int64_t) { return nullptr; }

extern "C" void *sprt_device_alloc(int64_t bytes) {
  size_t rounded = size_t((bytes + 63) / 64 * 64);
  void *p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (p)
    std::memset(p, 0, rounded);
  return p;
}

extern "C" void sprt_device_free(void *ptr) { std::free(ptr); }

extern "C" sprt_stream_t sprt_current_stream(void) {
  static sprt_stream stream;
  return &stream;
}

extern "C" void sprt_stream_synchronize(sprt_stream_t) {}

extern "C" void sprt_memcpy_to_device(void *dst, const void *src, int64_t bytes,
                                      sprt_stream_t) {
  std::memcpy(dst, src, size_t(bytes));
}

extern "C" void sprt_memcpy_to_host(void *dst, const void *src, int64_t bytes,
                                    sprt_stream_t) {
  std::memcpy(dst, src, size_t(bytes));
}

extern "C" void sprt_copy_2d(void *dst, int64_t dst_pitch, const void *src,
                             int64_t src_pitch, int64_t width_bytes,
                             int64_t height, sprt_stream_t) {
  for (int64_t r = 0; r < height; ++r)
    std::memcpy(static_cast<char *>(dst) + r * dst_pitch,
                static_cast<const char *>(src) + r * src_pitch,
                size_t(width_bytes));
}

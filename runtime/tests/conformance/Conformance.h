//===- Conformance.h - the backend conformance suite's helpers --*- C++ -*-===//
//
// The conformance suite is written once against the backend boundary (every
// pointer a device pointer) and compiled once per backend: inputs go up with
// sprt_memcpy_to_device into sprt_device_alloc'd buffers, the kernel runs on
// the backend's stream, results come back with sprt_memcpy_to_host +
// sprt_stream_synchronize and are compared with plain loops written in the
// tests (double unless the definition says float).
//
// Every test derives from DeviceTest, whose SetUp initialises the device
// once (sprt_device_init(0)) and GTEST_SKIPs the test with the backend's
// message when that fails (a CUDA build on a machine without a GPU), so
// ctest reports those tests as skipped, not passed.
//
// Tolerances. The kernels compute in fp32 and the references in double, so
// each check allows the kernel's own rounding: elementwise maps a few ulp
// (libm and CUDA's math functions differ by <= 2 ulp, e.g. erff, expf,
// cosf), reductions O(u sqrt(n)) of the sum of magnitudes (condition-aware
// scales where cancellation is possible). The CPU and CUDA backends order
// their reductions differently (block trees, cuBLAS tiling, atomics in the
// embedding gradient), so the tolerances are not set to what one backend's
// order happens to give; each test states its bound.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_TESTS_CONFORMANCE_H
#define SPRT_TESTS_CONFORMANCE_H

#include "../KernelTestUtil.h"
#include "sprt/device.h"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace sprt_conformance {

/// Whether the suite runs on the CPU backend (whose typed kernels give the
/// f32 kernels' bits exactly; other backends are checked within an ulp).
inline bool onCpuBackend() { return std::string(sprt_backend_name()) == "cpu"; }

/// sprt_device_init(0) once; the failure message, or empty on success.
inline const std::string &deviceInitError() {
  static const std::string error = [] {
    const char *msg = sprt_device_init(0);
    return msg ? std::string(msg) : std::string();
  }();
  return error;
}

class DeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string &err = deviceInitError();
    if (!err.empty())
      GTEST_SKIP() << "backend '" << sprt_backend_name()
                   << "' has no device: " << err;
  }
};

/// A device buffer of n elements of T, freed on destruction.
template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t n) : n(n) {
    ptr = static_cast<T *>(sprt_device_alloc(int64_t(bytes())));
    if (!ptr)
      throw std::bad_alloc();
  }
  explicit DeviceBuffer(const std::vector<T> &host)
      : DeviceBuffer(host.size()) {
    upload(host);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { sprt_device_free(ptr); }

  void upload(const std::vector<T> &host) {
    sprt_memcpy_to_device(ptr, host.data(), int64_t(bytes()),
                          sprt_current_stream());
  }
  std::vector<T> download() const {
    std::vector<T> host(n);
    sprt_memcpy_to_host(host.data(), ptr, int64_t(bytes()),
                        sprt_current_stream());
    sprt_stream_synchronize(sprt_current_stream());
    return host;
  }
  T *get() const { return ptr; }
  operator T *() const { return ptr; }
  size_t size() const { return n; }

private:
  size_t bytes() const { return n * sizeof(T); }
  T *ptr;
  size_t n;
};

/// One scalar in device memory (the optimizers' learning rate and step
/// count), for the call it is written in: freed after it (sprt_device_free
/// waits for the device).
inline DeviceBuffer<double> deviceLr(double lr) {
  return DeviceBuffer<double>(std::vector<double>{lr});
}
inline DeviceBuffer<int64_t> deviceStep(int64_t step) {
  return DeviceBuffer<int64_t>(std::vector<int64_t>{step});
}

/// An output buffer pre-filled with NaN, so elements a kernel fails to
/// write are caught.
inline std::vector<float> nans(size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

inline std::vector<double> toDouble(const std::vector<float> &v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Labels in [lo, hi) with every `ignoreEvery`-th one ignore_index.
inline std::vector<int64_t> randomLabels(size_t n, int64_t lo, int64_t hi,
                                         uint32_t seed, int64_t ignoreIndex,
                                         size_t ignoreEvery) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (ignoreEvery && i % ignoreEvery == ignoreEvery - 1) ? ignoreIndex
                                                               : dist(gen);
  return v;
}

/// Position ids [S, B] of packed documents: sequence b's documents have
/// lengths lengths[(b + d) % 4] for its d-th document, positions restarting
/// at 0 in each.
inline std::vector<int64_t> documentPositions(int64_t S, int64_t B,
                                              const int64_t (&lengths)[4]) {
  std::vector<int64_t> pos(size_t(S * B));
  for (int64_t b = 0; b < B; ++b) {
    int64_t doc = b, p = 0;
    for (int64_t s = 0; s < S; ++s) {
      if (p == lengths[doc % 4]) {
        p = 0;
        ++doc;
      }
      pos[size_t(s * B + b)] = p++;
    }
  }
  return pos;
}

/// The element type codes of the typed kernels (sprt/kernels.h) and their
/// names.
constexpr int32_t kF32 = SPRT_DTYPE_F32, kBf16 = SPRT_DTYPE_BF16,
                  kF16 = SPRT_DTYPE_F16;

/// Puts the native attention kernels back when it goes out of scope (a test
/// that selects cuDNN: the selection outlives a failed assertion).
struct NativeAttentionAfter {
  NativeAttentionAfter() = default;
  NativeAttentionAfter(const NativeAttentionAfter &) = delete;
  NativeAttentionAfter &operator=(const NativeAttentionAfter &) = delete;
  ~NativeAttentionAfter() { sprt_attention_select(kF32, "native"); }
};

inline const char *nameOf(int32_t t) {
  return t == kF32 ? "f32" : t == kBf16 ? "bf16" : "f16";
}

/// The unit roundoff of a result dtype t (half an ulp, relative), 0 for f32:
/// the f32 kernels' own bounds cover f32 results.
inline double unitRoundoff(int32_t t) {
  return t == kF32    ? 0.0
         : t == kBf16 ? std::ldexp(1.0, -8)
                      : std::ldexp(1.0, -11);
}

/// GELU in double: GPT-2's tanh form or the exact x Phi(x).
inline double geluRef(double x, bool tanhForm) {
  if (tanhForm)
    return 0.5 * x *
           (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

/// v rounded to dtype t and widened back: the values a kernel reads.
inline std::vector<float> asStored(std::vector<float> v, int32_t t) {
  for (float &x : v)
    x = t == kF32    ? x
        : t == kBf16 ? sprt::dtype::bf16ToF32(sprt::dtype::f32ToBf16(x))
                     : sprt::dtype::f16ToF32(sprt::dtype::f32ToF16(x));
  return v;
}

/// A device tensor of dtype t: floats rounded to t on upload, widened on
/// download.
class TypedBuffer {
public:
  TypedBuffer(const std::vector<float> &v, int32_t t) : t(t) {
    if (t == kF32) {
      f32 = std::make_unique<DeviceBuffer<float>>(v);
      return;
    }
    std::vector<uint16_t> bits(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      bits[i] = t == kBf16 ? sprt::dtype::f32ToBf16(v[i])
                           : sprt::dtype::f32ToF16(v[i]);
    h16 = std::make_unique<DeviceBuffer<uint16_t>>(bits);
  }
  void *get() const {
    return f32 ? static_cast<void *>(f32->get())
               : static_cast<void *>(h16->get());
  }
  std::vector<float> download() const {
    if (f32)
      return f32->download();
    std::vector<uint16_t> bits = h16->download();
    std::vector<float> v(bits.size());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = t == kBf16 ? sprt::dtype::bf16ToF32(bits[i])
                        : sprt::dtype::f16ToF32(bits[i]);
    return v;
  }

private:
  int32_t t;
  std::unique_ptr<DeviceBuffer<float>> f32;
  std::unique_ptr<DeviceBuffer<uint16_t>> h16;
};

} // namespace sprt_conformance

#endif // SPRT_TESTS_CONFORMANCE_H

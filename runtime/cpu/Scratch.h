//===- Scratch.h - kernel temporaries the runtime counts --------*- C++ -*-===//
//
// The CPU kernels' temporaries (attention panels, rotary tables, row
// accumulators) are ScratchVectors: std::vectors whose allocator reports
// every allocation and deallocation to the scratch observer
// (sprt_set_scratch_observer, sprt/device.h), so the runtime's allocator
// counts them. Nothing else differs from std::vector: the same
// value-initialised elements, the same numerics.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CPU_SCRATCH_H
#define SPRT_CPU_SCRATCH_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sprt::cpu {

/// Passes `deltaBytes` to the scratch observer, if one is set (Device.cpp).
void reportScratch(int64_t deltaBytes);

template <typename T> struct ScratchAllocator {
  using value_type = T;
  ScratchAllocator() = default;
  template <typename U> ScratchAllocator(const ScratchAllocator<U> &) {}

  T *allocate(size_t n) {
    T *p = std::allocator<T>().allocate(n);
    reportScratch(int64_t(n * sizeof(T)));
    return p;
  }
  void deallocate(T *p, size_t n) {
    reportScratch(-int64_t(n * sizeof(T)));
    std::allocator<T>().deallocate(p, n);
  }
  template <typename U> bool operator==(const ScratchAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const ScratchAllocator<U> &) const {
    return false;
  }
};

template <typename T> using ScratchVector = std::vector<T, ScratchAllocator<T>>;

} // namespace sprt::cpu

#endif // SPRT_CPU_SCRATCH_H

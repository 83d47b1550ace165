//===- device_radix_sort.cuh - CUB's radix sort, for the emulator -*- C++
//-*-===//
//
// cub::DeviceRadixSort::SortPairs as the emulator's host code: a stable sort
// of the pairs by the key bits [begin_bit, end_bit), as CUB's is, run in its
// stream's order (recorded while the stream is captured).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_EMU_CUB_DEVICE_RADIX_SORT_CUH
#define SPRT_EMU_CUB_DEVICE_RADIX_SORT_CUH

#include "SprtEmu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <type_traits>
#include <vector>

namespace cub {
struct DeviceRadixSort {
  template <typename K, typename V>
  static cudaError_t
  SortPairs(void *temp, size_t &tempBytes, const K *keysIn, K *keysOut,
            const V *valuesIn, V *valuesOut, int n, int beginBit = 0,
            int endBit = int(sizeof(K) * 8), cudaStream_t stream = nullptr) {
    static_assert(std::is_integral<K>::value, "integer keys");
    if (!temp) {
      tempBytes = 256;
      return cudaSuccess;
    }
    return sprt_emu::enqueue(stream, [=] {
      sort(keysIn, keysOut, valuesIn, valuesOut, n, beginBit, endBit);
    });
  }

private:
  template <typename K, typename V>
  static void sort(const K *keysIn, K *keysOut, const V *valuesIn, V *valuesOut,
                   int n, int beginBit, int endBit) {
    using U = std::make_unsigned_t<K>;
    const U mask = endBit - beginBit >= int(sizeof(U) * 8)
                       ? U(~U(0))
                       : U((U(1) << (endBit - beginBit)) - 1);
    auto bits = [&](K k) { return U(U(k) >> beginBit) & mask; };
    std::vector<int> order(size_t(n > 0 ? n : 0));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return bits(keysIn[a]) < bits(keysIn[b]);
    });
    std::vector<K> keys(order.size());
    std::vector<V> values(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      keys[i] = keysIn[order[i]];
      values[i] = valuesIn[order[i]];
    }
    std::copy(keys.begin(), keys.end(), keysOut);
    std::copy(values.begin(), values.end(), valuesOut);
  }
};
} // namespace cub

#endif // SPRT_EMU_CUB_DEVICE_RADIX_SORT_CUH

//===- CollectiveTestUtil.h - helpers for the tests under mpirun -*- C++
//-*-===//
//
// What the collective tests (CollectivesTest.cpp, FusedBackwardTest.cpp)
// share: a one-axis mesh over the world, a caller-provided workspace with
// guard values after it, and the message of an std::invalid_argument.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_TESTS_COLLECTIVETESTUTIL_H
#define SPRT_TESTS_COLLECTIVETESTUTIL_H

#include "sprt/runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sprt_test {

inline int worldSize() {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// A one-axis mesh over the whole world.
inline void lineMesh() {
  int64_t n = worldSize();
  ASSERT_EQ(sprt_mesh_init(1, &n), 0);
}

/// A caller-provided workspace of `bytes` bytes followed by guard floats
/// that the kernel must leave alone.
struct GuardedWorkspace {
  static constexpr float kGuard = -12345.0f;
  static constexpr size_t kGuardFloats = 16;
  int64_t bytes;
  std::vector<float> data;

  explicit GuardedWorkspace(int64_t bytes)
      : bytes(bytes), data(size_t(bytes / 4) + kGuardFloats, kGuard) {}
  void *get() { return data.data(); }
  bool guardIntact() const {
    for (size_t i = size_t(bytes / 4); i < data.size(); ++i)
      if (data[i] != kGuard)
        return false;
    return true;
  }
};

/// The message of the std::invalid_argument `call` throws, or "".
template <typename F> std::string invalidArgument(F call) {
  try {
    call();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}

} // namespace sprt_test

#endif // SPRT_TESTS_COLLECTIVETESTUTIL_H

//===- Mesh.cpp - the mesh, per-axis communicators, byte counters ---------===//

#include "Mesh.h"

#include "sprt/device.h"
#include "sprt/runtime.h"

#include <cstdio>

using namespace sprt;

Mesh &sprt::mesh() {
  static Mesh m;
  return m;
}

extern "C" int sprt_mesh_init(int32_t numAxes, const int64_t *sizes) {
  Mesh &m = mesh();
  int worldSize = World::size(), worldRank = World::rank();
  int64_t total = 1;
  for (int32_t a = 0; a < numAxes; ++a)
    total *= sizes[a];
  if (total != worldSize) {
    std::fprintf(stderr,
                 "sprt: rank %d: the program was compiled for %lld ranks "
                 "but runs on %d (start it with mpirun -np %lld)\n",
                 worldRank, (long long)total, worldSize, (long long)total);
    return -1;
  }
  sprt_mesh_finalize(); // a second init replaces the mesh
  m.sizes.assign(sizes, sizes + numAxes);
  m.worldRank = worldRank;
  m.worldSize = worldSize;
  m.coords.assign(numAxes, 0);
  int64_t r = worldRank;
  for (int32_t a = numAxes - 1; a >= 0; --a) {
    m.coords[a] = r % sizes[a];
    r /= sizes[a];
  }
  m.bytesSent.assign(numAxes, 0);
  m.comms.clear();
  for (int32_t a = 0; a < numAxes; ++a) {
    // Ranks that agree on every other coordinate form the axis's group.
    int64_t color = 0;
    for (int32_t b = 0; b < numAxes; ++b)
      if (b != a)
        color = color * sizes[b] + m.coords[b];
    m.comms.push_back(World::split(color, m.coords[a], a));
  }
  return 0;
}

extern "C" void sprt_mesh_finalize(void) {
  // The sends still outstanding complete on the communicators they use.
  if (!mesh().comms.empty())
    releaseSendBuffers();
  releaseRingBuffers();
  mesh().comms.clear();
}

extern "C" int32_t sprt_mesh_num_axes(void) {
  return int32_t(mesh().sizes.size());
}
extern "C" int64_t sprt_world_rank(void) { return mesh().worldRank; }
extern "C" int64_t sprt_world_size(void) { return mesh().worldSize; }
extern "C" int64_t sprt_axis_coord(int32_t axis) {
  return axis < 0 ? 0 : mesh().coords.at(axis);
}
extern "C" int64_t sprt_axis_size(int32_t axis) {
  return axis < 0 ? 1 : mesh().sizes.at(axis);
}
extern "C" int64_t sprt_bytes_sent(int32_t axis) {
  return mesh().bytesSent.at(axis);
}
extern "C" void sprt_count_bytes_sent(int32_t axis, int64_t bytes) {
  mesh().bytesSent.at(size_t(axis)) += bytes;
}
extern "C" void sprt_reset_bytes_sent(void) {
  for (int64_t &b : mesh().bytesSent)
    b = 0;
}

extern "C" void sprt_set_seed(uint64_t seed) { mesh().seed = seed; }
extern "C" uint64_t sprt_get_seed(void) { return mesh().seed; }

/// SplitMix64's finaliser: a bijection of 64-bit words that spreads every
/// input bit over the output.
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {
/// The capture in progress, and its first refusal.
bool capturing = false;
std::string captureRefusal;
} // namespace

void sprt::refuseCapture(const std::string &why) {
  if (capturing && captureRefusal.empty())
    captureRefusal = why;
}

extern "C" void sprt_capture_begin(void) {
  capturing = true;
  captureRefusal.clear();
}

extern "C" const char *sprt_capture_end(void) {
  capturing = false;
  return captureRefusal.empty() ? nullptr : captureRefusal.c_str();
}

extern "C" uint64_t sprt_dropout_key(void) {
  // The step's key is the kernels' salt (stepDropoutSalt), which they XOR
  // into the key they are passed.
  return 0;
}

uint64_t sprt::stepDropoutSalt() {
  // Distinct steps give distinct keys for one seed (mix64 is a bijection),
  // and seeds are kept apart by mixing the step in before the seed.
  return mix64(mesh().seed ^ mix64(uint64_t(mesh().step)));
}

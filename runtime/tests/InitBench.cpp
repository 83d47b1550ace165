//===- InitBench.cpp - parameter draws: host loop against sprt_init_normal
//-===//
//
// Measures, in one run, the draws per second of the original host loop
// (one sprt_normal per element, one thread: what Params::initialize did)
// and of sprt_init_normal on 1 thread and on THREADS threads (default: the
// cores this process may use), on the same 2^26 elements, and checks that
// all three wrote the same bits. bench/startup.sh runs it.
//
//===----------------------------------------------------------------------===//

#include "sprt/init.h"
#include "sprt/kernels.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

int main(int argc, char **argv) {
  const int64_t n = int64_t(1) << 26;
  const uint64_t seed = 1234, stream = sprt_hash_name("bench.weight");
  const float scale = 0.02f;
  int threads =
      argc > 1 ? std::atoi(argv[1]) : int(std::thread::hardware_concurrency());
  if (threads < 1)
    threads = 1;
  std::vector<float> loop(size_t(n), 0.0f), fast(size_t(n), 0.0f);

  auto start = std::chrono::steady_clock::now();
  for (int64_t e = 0; e < n; ++e)
    loop[size_t(e)] = scale * sprt_normal(seed, stream, uint64_t(e));
  const double loopSeconds = seconds(start);

  sprt_shard_map map{};
  map.rank = 1;
  map.local_shape[0] = map.global_shape[0] = n;
  map.local_block[0] = map.global_block[0] = n;
  double fastSeconds[2] = {0.0, 0.0};
  bool same = true;
  for (int k = 0; k < 2; ++k) {
    sprt_set_host_threads(k == 0 ? 1 : threads);
    std::memset(fast.data(), 0, fast.size() * sizeof(float));
    start = std::chrono::steady_clock::now();
    sprt_init_normal(&map, seed, stream, scale, fast.data(), SPRT_DTYPE_F32,
                     nullptr, 0, 0);
    fastSeconds[k] = seconds(start);
    same &= std::memcmp(loop.data(), fast.data(), loop.size() * 4) == 0;
  }
  auto rate = [&](double s) { return double(n) / s * 1e-6; };
  std::printf("%-34s %10s %12s %8s\n", "2^26 normal draws", "seconds",
              "Mdraws/s", "speed-up");
  std::printf("%-34s %10.3f %12.1f %8s\n", "host loop (sprt_normal, 1 thread)",
              loopSeconds, rate(loopSeconds), "1.00");
  std::printf("%-34s %10.3f %12.1f %8.2f\n", "sprt_init_normal, 1 thread",
              fastSeconds[0], rate(fastSeconds[0]),
              loopSeconds / fastSeconds[0]);
  char label[64];
  std::snprintf(label, sizeof label, "sprt_init_normal, %d threads", threads);
  std::printf("%-34s %10.3f %12.1f %8.2f\n", label, fastSeconds[1],
              rate(fastSeconds[1]), loopSeconds / fastSeconds[1]);
  std::printf("same bits: %s\n", same ? "yes" : "NO");
  return same ? 0 : 1;
}

/*===- sprt/init.h - parameters drawn and filled on the device ------------===*
 *
 * Start-up writes every parameter shard where it lives, without a host loop
 * per element: the CPU backend draws on all the cores it is given, the CUDA
 * backend in a kernel. The values are the ones sprt_normal gives element by
 * element (sprt/philox.h), bit for bit: a fast Box-Muller (sprt/
 * fast_normal.h) whose every result is either proven equal to the reference
 * or recomputed by it.
 *
 * A shard is described by where its elements sit in the whole tensor
 * (sprt_shard_map), so that element e of the shard draws from the global
 * index of e: any layout draws exactly the slice of the unsharded values.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_INIT_H
#define SPRT_INIT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPRT_MAX_SHARD_DIMS 8

/* Where a rank's shard of a row-major tensor of `rank` dimensions sits in
 * the whole tensor. Along dimension d the whole tensor's global_shape[d]
 * is cut into blocks of global_block[d]; the shard holds local_block[d]
 * consecutive elements of each block, from position offset[d] of the block
 * (local_shape[d] = blocks * local_block[d]). An unsplit dimension is one
 * block, held whole: local_block = global_block = local_shape = global_shape,
 * offset 0. Local coordinate l maps to global coordinate
 * (l / local_block) * global_block + offset + l % local_block. */
typedef struct sprt_shard_map {
  int32_t rank;
  int64_t local_shape[SPRT_MAX_SHARD_DIMS];
  int64_t global_shape[SPRT_MAX_SHARD_DIMS];
  int64_t local_block[SPRT_MAX_SHARD_DIMS];
  int64_t global_block[SPRT_MAX_SHARD_DIMS];
  int64_t offset[SPRT_MAX_SHARD_DIMS];
} sprt_shard_map;

/* Element e of the shard (row-major in local_shape) becomes
 * scale * sprt_normal(seed, stream_id, global index of e), a float product,
 * stored in `out` as `dtype` (SPRT_DTYPE_*, rounded to nearest even). When
 * `master` is not NULL, elements [master_begin, master_begin + master_count)
 * of the shard are also written to it in f32, unrounded (a master weight's
 * slice). On the current stream. */
void sprt_init_normal(const sprt_shard_map *map, uint64_t seed,
                      uint64_t stream_id, float scale, void *out, int32_t dtype,
                      float *master, int64_t master_begin,
                      int64_t master_count);

/* out[0, n) = value as `dtype`, master[0, master_count) = value (master may
 * be NULL). On the current stream. */
void sprt_init_constant(int64_t n, float value, void *out, int32_t dtype,
                        float *master, int64_t master_count);

/* The host threads the backend may use for start-up work such as
 * sprt_init_normal on the CPU (default: every core the process may run on).
 * main() gives each rank its share of the node's cores. */
void sprt_set_host_threads(int32_t threads);

#ifdef __cplusplus
} /* extern "C" */

namespace sprt {

/// The number of elements of a shard.
inline int64_t shardElements(const sprt_shard_map &map) {
  int64_t n = 1;
  for (int32_t d = 0; d < map.rank; ++d)
    n *= map.local_shape[d];
  return n;
}

/// Calls f(local, global, length) for the runs of elements [begin, begin +
/// count) of the shard (those it has) whose global indices are consecutive:
/// local element local + i is global element global + i for i < length. A run
/// never crosses a block of the last dimension.
template <typename F>
void forEachShardRun(const sprt_shard_map &map, int64_t begin, int64_t count,
                     F f) {
  if (count <= 0)
    return;
  const int32_t last = map.rank - 1;
  if (map.rank == 0) {
    if (begin == 0)
      f(int64_t(0), int64_t(0), int64_t(1));
    return;
  }
  int64_t coord[SPRT_MAX_SHARD_DIMS];
  int64_t rest = begin;
  for (int32_t d = last; d >= 0; --d) {
    coord[d] = rest % map.local_shape[d];
    rest /= map.local_shape[d];
  }
  int64_t local = begin;
  const int64_t n = shardElements(map);
  const int64_t end = begin + count < n ? begin + count : n;
  while (local < end) {
    int64_t global = 0;
    for (int32_t d = 0; d <= last; ++d) {
      int64_t l = coord[d];
      int64_t g = (l / map.local_block[d]) * map.global_block[d] +
                  map.offset[d] + l % map.local_block[d];
      global = global * map.global_shape[d] + g;
    }
    int64_t within = coord[last] % map.local_block[last];
    int64_t length = map.local_block[last] - within;
    if (length > end - local)
      length = end - local;
    f(local, global, length);
    local += length;
    coord[last] += length;
    // Carry into the outer dimensions.
    for (int32_t d = last; d > 0 && coord[d] >= map.local_shape[d]; --d) {
      coord[d] = 0;
      ++coord[d - 1];
    }
  }
}

} // namespace sprt

#endif /* __cplusplus */

#endif /* SPRT_INIT_H */

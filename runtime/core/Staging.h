//===- Staging.h - device buffers for packing and unpacking -----*- C++ -*-===//
//
// The collectives move contiguous blocks; a block that is strided in its
// tensor is packed into (or unpacked from) a staging buffer of device memory.
// The fused ops' chunks and the coalesced collectives' buckets are
// workspaces from a second pool of the same kind. Buffers come from the
// runtime's allocator (Memory.h, counted under the pool's category) on first
// need, go back to their pool when their operation has been waited for, and
// are freed by sprt_mesh_finalize. A buffer handed out again is only written
// by work ordered after the last use of its previous holder (the compute
// stream, or a collective started after it).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_STAGING_H
#define SPRT_CORE_STAGING_H

#include "Memory.h"

#include <cstdint>
#include <vector>

namespace sprt {

class Staging {
public:
  explicit Staging(MemoryCategory category) : category(category) {}
  /// A free buffer of at least `bytes` bytes (aborts the job when device
  /// memory runs out).
  void *acquire(int64_t bytes);
  /// Gives a buffer from acquire() back.
  void release(void *buffer);
  /// Frees every buffer (none may be held).
  void freeAll();

private:
  struct Buffer {
    void *data;
    int64_t bytes;
    bool held;
  };
  MemoryCategory category;
  std::vector<Buffer> buffers;
};

/// The process's pool of collectives' staging buffers.
Staging &staging();
/// The process's pool of workspaces (fused chunks, coalesced buckets).
Staging &workspaces();

/// A buffer from a pool for one scope.
class StagingBuffer {
public:
  explicit StagingBuffer(int64_t bytes, Staging &pool = staging())
      : pool(pool), data(pool.acquire(bytes)) {}
  ~StagingBuffer() { pool.release(data); }
  StagingBuffer(const StagingBuffer &) = delete;
  StagingBuffer &operator=(const StagingBuffer &) = delete;
  template <typename T> T *as() const { return static_cast<T *>(data); }

private:
  Staging &pool;
  void *data;
};

} // namespace sprt

#endif // SPRT_CORE_STAGING_H

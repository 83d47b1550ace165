//===- Memory.h - the runtime's device allocator ----------------*- C++ -*-===//
//
// Every byte of device memory the runtime asks a backend for goes through
// allocate() / release(), which count the live bytes of each category and
// of the total and keep their peaks: the figures main() reports (JSONL
// metrics, the exit line) are measured here, never copied from the
// compiler's plan. The backend reports the scratch it allocates for itself
// (kernel temporaries, cached workspaces) through
// sprt_set_scratch_observer (sprt/device.h), counted as Scratch.
//
// The total peak is the largest sum of live bytes at any moment, not the
// sum of the categories' peaks. Bytes are those asked for: a backend rounds
// an allocation up to 64 bytes (sprt_device_alloc), at most 63 more each.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_MEMORY_H
#define SPRT_CORE_MEMORY_H

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sprt {

/// What device memory holds. Gradients live in the arena (the compiler
/// plans them with the other values of the step), and so do the kernels'
/// workspaces (fused chunks, coalesced buckets, pack buffers: Workspace.h),
/// which the runtime measures by use, not by allocation.
enum class MemoryCategory : int {
  Arena,          ///< the step's planned arena (one allocation)
  Parameters,     ///< this rank's parameter shards
  OptimizerState, ///< AdamW's moments
  Tokens,         ///< the step's input ids and labels
  Scratch,        ///< the backend's own kernel temporaries
  Count
};
constexpr int kNumMemoryCategories = int(MemoryCategory::Count);

/// The category's name in the metrics ("optimizer_state").
const char *memoryCategoryName(MemoryCategory category);

/// The category named `name` ("optimizer_state"); false if none is.
bool memoryCategoryNamed(const std::string &name, MemoryCategory &category);

/// Live and peak bytes per category and in total, and of the categories the
/// compiler's plan does not cover (MemoryTracker::setPlanned): their peak is
/// the largest sum of their live bytes at one moment.
struct MemoryStats {
  int64_t live[kNumMemoryCategories] = {};
  int64_t peak[kNumMemoryCategories] = {};
  int64_t liveTotal = 0, peakTotal = 0;
  int64_t liveUnplanned = 0, peakUnplanned = 0;
};

/// Counts bytes as they come and go (thread-safe).
class MemoryTracker {
public:
  /// `delta` bytes more (or fewer, when negative) live in `category`.
  void record(MemoryCategory category, int64_t delta);
  MemoryStats stats() const;
  /// Says that the compiler planned `category`'s bytes (the categories of
  /// the model's "planned" object); the others count as unplanned. Called
  /// before the category's first allocation.
  void setPlanned(MemoryCategory category);

private:
  mutable std::mutex mutex;
  MemoryStats counts;
  bool planned[kNumMemoryCategories] = {};
};

/// The process's tracker: allocate() / release() and the backend's scratch.
MemoryTracker &memoryTracker();

/// Zeroed device memory (sprt_device_alloc) of `bytes` bytes counted under
/// `category`; NULL if the backend is out of memory.
void *allocate(int64_t bytes, MemoryCategory category);
/// Frees memory from allocate() (NULL is ignored); throws std::logic_error
/// on a pointer allocate() did not return.
void release(void *ptr);
/// Has the backend report its scratch to memoryTracker().
void trackBackendScratch();

} // namespace sprt

#endif // SPRT_CORE_MEMORY_H

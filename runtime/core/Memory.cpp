//===- Memory.cpp - the runtime's device allocator ------------------------===//

#include "Memory.h"
#include "Trace.h"

#include "sprt/device.h"

#include <stdexcept>

using namespace sprt;

const char *sprt::memoryCategoryName(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Arena:
    return "arena";
  case MemoryCategory::Parameters:
    return "parameters";
  case MemoryCategory::OptimizerState:
    return "optimizer_state";
  case MemoryCategory::Tokens:
    return "tokens";
  case MemoryCategory::Scratch:
    return "scratch";
  case MemoryCategory::Count:
    break;
  }
  return "?";
}

bool sprt::memoryCategoryNamed(const std::string &name,
                               MemoryCategory &category) {
  for (int c = 0; c < kNumMemoryCategories; ++c)
    if (name == memoryCategoryName(MemoryCategory(c))) {
      category = MemoryCategory(c);
      return true;
    }
  return false;
}

void MemoryTracker::setPlanned(MemoryCategory category) {
  std::lock_guard<std::mutex> lock(mutex);
  planned[int(category)] = true;
}

void MemoryTracker::record(MemoryCategory category, int64_t delta) {
  std::lock_guard<std::mutex> lock(mutex);
  int c = int(category);
  if (counts.live[c] + delta < 0)
    throw std::logic_error(std::string("sprt: more ") +
                           memoryCategoryName(category) +
                           " memory released than allocated");
  counts.live[c] += delta;
  counts.liveTotal += delta;
  if (counts.live[c] > counts.peak[c])
    counts.peak[c] = counts.live[c];
  if (counts.liveTotal > counts.peakTotal)
    counts.peakTotal = counts.liveTotal;
  // Every change is a sample: the counter's largest value is peakTotal.
  traceLiveBytes(counts.liveTotal);
  if (!planned[c]) {
    counts.liveUnplanned += delta;
    if (counts.liveUnplanned > counts.peakUnplanned)
      counts.peakUnplanned = counts.liveUnplanned;
  }
}

MemoryStats MemoryTracker::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counts;
}

MemoryTracker &sprt::memoryTracker() {
  static MemoryTracker t;
  return t;
}

namespace {
struct Allocation {
  int64_t bytes;
  MemoryCategory category;
};

std::mutex &allocationsMutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<void *, Allocation> &allocations() {
  static std::unordered_map<void *, Allocation> a;
  return a;
}
} // namespace

void *sprt::allocate(int64_t bytes, MemoryCategory category) {
  if (bytes < 0)
    throw std::invalid_argument("sprt: allocating " + std::to_string(bytes) +
                                " bytes");
  void *p = sprt_device_alloc(bytes);
  if (!p)
    return nullptr;
  {
    std::lock_guard<std::mutex> lock(allocationsMutex());
    allocations()[p] = {bytes, category};
  }
  memoryTracker().record(category, bytes);
  return p;
}

void sprt::release(void *ptr) {
  if (!ptr)
    return;
  Allocation a;
  {
    std::lock_guard<std::mutex> lock(allocationsMutex());
    auto it = allocations().find(ptr);
    if (it == allocations().end())
      throw std::logic_error("sprt: releasing memory the runtime's allocator "
                             "did not allocate");
    a = it->second;
    allocations().erase(it);
  }
  sprt_device_free(ptr);
  memoryTracker().record(a.category, -a.bytes);
}

static void recordScratch(int64_t delta) {
  memoryTracker().record(MemoryCategory::Scratch, delta);
}

void sprt::trackBackendScratch() { sprt_set_scratch_observer(recordScratch); }

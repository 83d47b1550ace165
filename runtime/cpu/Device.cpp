//===- Device.cpp - the CPU backend's memory and stream -------------------===//
//
// Host memory, and a stream that runs every call to completion before it
// returns: the in-order queue semantics of sprt/device.h with nothing left to
// wait for.
//
//===----------------------------------------------------------------------===//

#include "sprt/device.h"
#include "Scratch.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <sys/mman.h>

struct sprt_stream {};

extern "C" const char *sprt_backend_name(void) { return "cpu"; }

extern "C" const char *sprt_device_init(int64_t) { return nullptr; }

extern "C" int sprt_device_memory(int64_t *free_bytes, int64_t *total_bytes) {
  std::FILE *f = std::fopen("/proc/meminfo", "r");
  if (!f)
    return 1;
  long long total = -1, available = -1, kib = 0;
  char name[64];
  while (std::fscanf(f, "%63s %lld kB", name, &kib) == 2) {
    if (std::strcmp(name, "MemTotal:") == 0)
      total = kib;
    else if (std::strcmp(name, "MemAvailable:") == 0)
      available = kib;
  }
  std::fclose(f);
  if (total < 0 || available < 0)
    return 1;
  *free_bytes = int64_t(available) * 1024;
  *total_bytes = int64_t(total) * 1024;
  return 0;
}

extern "C" const char *sprt_device_reserve_workspaces(void) { return nullptr; }

extern "C" int64_t sprt_device_id(void) { return 0; }
extern "C" int64_t sprt_device_key(void) { return 0; }

namespace {
/// Allocations of at least this size are mappings of their own: the kernel
/// hands them out zeroed, page by page as they are first touched, so a
/// large arena or optimizer state costs nothing until the step writes it
/// (a memset would touch every page at start-up).
constexpr size_t kMappedBytes = size_t(1) << 20;

std::mutex mappedMutex;
std::unordered_map<void *, size_t> mapped;
} // namespace

extern "C" void *sprt_device_alloc(int64_t bytes) {
  size_t rounded = size_t((bytes + 63) / 64 * 64);
  if (rounded >= kMappedBytes) {
    void *p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return nullptr;
    // Huge pages where the system allows them on request: fewer faults.
    madvise(p, rounded, MADV_HUGEPAGE);
    std::lock_guard<std::mutex> lock(mappedMutex);
    mapped.emplace(p, rounded);
    return p;
  }
  void *p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (p)
    std::memset(p, 0, rounded);
  return p;
}

extern "C" void sprt_device_free(void *ptr) {
  {
    std::lock_guard<std::mutex> lock(mappedMutex);
    auto it = mapped.find(ptr);
    if (it != mapped.end()) {
      munmap(ptr, it->second);
      mapped.erase(it);
      return;
    }
  }
  std::free(ptr);
}

static std::atomic<sprt_scratch_observer_t> scratchObserver{nullptr};

extern "C" void sprt_set_scratch_observer(sprt_scratch_observer_t observer) {
  scratchObserver.store(observer);
}

void sprt::cpu::reportScratch(int64_t deltaBytes) {
  if (sprt_scratch_observer_t observer = scratchObserver.load())
    observer(deltaBytes);
}

extern "C" void *sprt_host_alloc(int64_t bytes) {
  return bytes > 0 ? std::malloc(size_t(bytes)) : std::malloc(1);
}

extern "C" void sprt_host_free(void *ptr) { std::free(ptr); }

extern "C" int sprt_graph_supported(void) { return 0; }

/// The graph calls end the job here: callers ask sprt_graph_supported().
[[noreturn]] static void noGraphs(const char *fn) {
  std::fprintf(stderr, "%s: the cpu backend has no graphs\n", fn);
  std::abort();
}

extern "C" void sprt_graph_begin_capture(sprt_stream_t) {
  noGraphs("sprt_graph_begin_capture");
}

extern "C" sprt_graph_t sprt_graph_end_capture(sprt_stream_t, const char **) {
  noGraphs("sprt_graph_end_capture");
}

extern "C" void sprt_graph_launch(sprt_graph_t, sprt_stream_t) {
  noGraphs("sprt_graph_launch");
}

extern "C" void sprt_graph_destroy(sprt_graph_t) {
  noGraphs("sprt_graph_destroy");
}

extern "C" int sprt_graph_note_error(const char *) { return 0; }

extern "C" sprt_step_values *sprt_step_values_host(void) {
  static sprt_step_values values;
  return &values;
}

extern "C" sprt_step_values *sprt_step_values_device(void) {
  return sprt_step_values_host();
}

extern "C" sprt_stream_t sprt_current_stream(void) {
  static sprt_stream stream;
  return &stream;
}

extern "C" void sprt_stream_synchronize(sprt_stream_t) {}

extern "C" void sprt_memcpy_to_device(void *dst, const void *src, int64_t bytes,
                                      sprt_stream_t) {
  std::memcpy(dst, src, size_t(bytes));
}

extern "C" void sprt_memcpy_to_host(void *dst, const void *src, int64_t bytes,
                                    sprt_stream_t) {
  std::memcpy(dst, src, size_t(bytes));
}

extern "C" void sprt_copy_2d(void *dst, int64_t dstPitch, const void *src,
                             int64_t srcPitch, int64_t widthBytes,
                             int64_t height, sprt_stream_t) {
  if (widthBytes <= 0 || height <= 0)
    return;
  if (widthBytes == dstPitch && widthBytes == srcPitch) {
    std::memcpy(dst, src, size_t(widthBytes * height));
    return;
  }
  for (int64_t i = 0; i < height; ++i)
    std::memcpy(static_cast<char *>(dst) + i * dstPitch,
                static_cast<const char *>(src) + i * srcPitch,
                size_t(widthBytes));
}

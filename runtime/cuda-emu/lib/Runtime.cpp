//===- Runtime.cpp - the CUDA runtime API the backend calls, on the CPU ---===//
//
// Device memory is host memory that cudaMalloc records, so that a copy
// whose device side is not device memory is refused, as a GPU would fault.
// Streams run their work at once, in issue order. A stream being captured
// records its work instead (kernels with their arguments, copies, sets), a
// graph replays it: what a replay does not redo (a value the host read
// while capturing, an argument fixed at capture) shows as on the device. A
// stream that waits for an event recorded in a capture joins it, as in
// CUDA (its work is recorded in the same graph), and must be joined back
// (its last work followed by an event a capturing stream waits for) before
// the capture ends, or the capture fails as unjoined. A synchronising call
// on a capturing stream, or the legacy default stream used while one is
// captured, fails and invalidates the capture, as CUDA's does. Launches past
// the limits of an H100 (threads per block, grid dimensions, shared memory
// without cudaFuncSetAttribute) fail with CUDA's error.
//
//===----------------------------------------------------------------------===//

#include "Emu.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

namespace {
/// A capture: the work of the stream that began it and of the streams that
/// joined it, in issue order (the order they run in here).
struct Capture {
  cudaStream_t origin = nullptr;
  bool invalidated = false, ended = false;
  std::shared_ptr<std::vector<std::function<void()>>> ops =
      std::make_shared<std::vector<std::function<void()>>>();
  std::vector<cudaStream_t> joined;
};
} // namespace

struct CUstream_st {
  std::shared_ptr<Capture> capture; // while capturing
  uint64_t work = 0;     // operations recorded in `capture` by this stream
  uint64_t rejoined = 0; // of them, those a capturing stream waited for
};
struct CUevent_st {
  std::shared_ptr<Capture> capture; // recorded in a capture
  cudaStream_t stream = nullptr;
  uint64_t work = 0; // the stream's recorded operations before it
};
struct CUgraph_st {
  std::shared_ptr<std::vector<std::function<void()>>> ops;
};
struct CUgraphExec_st {
  std::shared_ptr<std::vector<std::function<void()>>> ops;
};

namespace {

/// The device's memory: 80 GiB, or SPRT_EMU_DEVICE_MIB MiB.
const size_t kDeviceBytes = [] {
  const char *mib = std::getenv("SPRT_EMU_DEVICE_MIB");
  const long long n = mib ? std::atoll(mib) : 0;
  return n > 0 ? size_t(n) << 20 : size_t(80) << 30;
}();
constexpr size_t kSharedDefault = 48 << 10;
constexpr size_t kSharedOptIn = 227 << 10;

std::recursive_mutex mutex;
cudaError_t lastError = cudaSuccess;
/// Allocations: start -> bytes (device and pinned host memory alike).
std::map<const char *, size_t> allocations;
size_t allocated = 0;
int captures = 0; // captures under way
/// The most dynamic shared memory any kernel was allowed
/// (cudaFuncSetAttribute): launches are checked against it.
size_t sharedAllowed = kSharedDefault;

cudaError_t fail(cudaError_t e) {
  if (e != cudaSuccess)
    lastError = e;
  return e;
}

cudaError_t invalidate(cudaStream_t s, cudaError_t e) {
  if (s && s->capture)
    s->capture->invalidated = true;
  return fail(e);
}

[[noreturn]] void fatal(const std::string &what) {
  std::fprintf(stderr, "sprt emu: %s\n", what.c_str());
  std::abort();
}

} // namespace

namespace sprt_emu {

bool isDeviceMemory(const void *p, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  const char *c = static_cast<const char *>(p);
  auto it = allocations.upper_bound(c);
  if (it == allocations.begin())
    return false;
  --it;
  return c + bytes <= it->first + it->second;
}

cudaError_t enqueue(cudaStream_t stream, std::function<void()> op) {
  if (stream && stream->capture) {
    stream->capture->ops->push_back(std::move(op));
    ++stream->work;
    return cudaSuccess;
  }
  if (!stream && captures > 0)
    return fail(cudaErrorStreamCaptureImplicit);
  op();
  return cudaSuccess;
}

void runGrid(const Config &c, const char *kernel, std::function<void()> body) {
  const unsigned long long threads =
      (unsigned long long)c.block.x * c.block.y * c.block.z;
  const bool bad = threads == 0 || threads > 1024 || c.block.z > 64 ||
                   c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 ||
                   c.grid.y > 65535 || c.grid.z > 65535 ||
                   c.grid.x > 2147483647u;
  if (bad) {
    std::fprintf(stderr,
                 "sprt emu: kernel %s launched with grid (%u, %u, %u) and "
                 "block (%u, %u, %u): past the device's limits\n",
                 kernel, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
                 c.block.z);
    fail(cudaErrorInvalidConfiguration);
    return;
  }
  if (c.shared > sharedAllowed) {
    std::fprintf(stderr,
                 "sprt emu: kernel %s asks for %zu bytes of shared memory; "
                 "%zu allowed (cudaFuncSetAttribute)\n",
                 kernel, c.shared, sharedAllowed);
    fail(cudaErrorInvalidValue);
    return;
  }
  std::string name = kernel;
  fail(enqueue(c.stream,
               [c, name, body] { executeGrid(c, name.c_str(), body); }));
}

} // namespace sprt_emu

using sprt_emu::enqueue;
using sprt_emu::isDeviceMemory;

extern "C" {

cudaError_t cudaGetLastError(void) {
  cudaError_t e = lastError;
  lastError = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return lastError; }
const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration:
    return "cudaErrorInvalidConfiguration";
  case cudaErrorStreamCaptureUnsupported:
    return "cudaErrorStreamCaptureUnsupported";
  case cudaErrorStreamCaptureInvalidated:
    return "cudaErrorStreamCaptureInvalidated";
  case cudaErrorStreamCaptureImplicit:
    return "cudaErrorStreamCaptureImplicit";
  case cudaErrorStreamCaptureMerge:
    return "cudaErrorStreamCaptureMerge";
  case cudaErrorStreamCaptureUnmatched:
    return "cudaErrorStreamCaptureUnmatched";
  case cudaErrorStreamCaptureUnjoined:
    return "cudaErrorStreamCaptureUnjoined";
  case cudaErrorIllegalAddress:
    return "cudaErrorIllegalAddress";
  default:
    return "cudaError (emulated)";
  }
}
const char *cudaGetErrorString(cudaError_t e) { return cudaGetErrorName(e); }

cudaError_t cudaGetDeviceCount(int *count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}
cudaError_t cudaGetDevice(int *device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  return captures > 0 ? fail(cudaErrorStreamCaptureUnsupported) : cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
  if (device != 0)
    return fail(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "sprt CPU emulator (H100 limits)");
  // Each process its own GPU (the emulated ranks of a job have one each),
  // or, with SPRT_EMU_ONE_GPU=1, every process of the machine on one.
  const char *one = std::getenv("SPRT_EMU_ONE_GPU");
  const uint64_t owner =
      one && std::strcmp(one, "1") == 0 ? 0 : uint64_t(getpid());
  for (int i = 0; i < 8; ++i)
    p->uuid.bytes[i] = char(0x5a + i);
  std::memcpy(p->uuid.bytes + 8, &owner, 8);
  p->totalGlobalMem = kDeviceBytes;
  p->sharedMemPerBlock = kSharedDefault;
  p->sharedMemPerBlockOptin = kSharedOptIn;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->multiProcessorCount = 132;
  p->major = 9;
  p->minor = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                   int device) {
  if (device != 0)
    return fail(cudaErrorInvalidDevice);
  switch (attr) {
  case cudaDevAttrMultiProcessorCount:
    *value = 132;
    return cudaSuccess;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *value = int(kSharedOptIn);
    return cudaSuccess;
  case cudaDevAttrMaxThreadsPerBlock:
    *value = 1024;
    return cudaSuccess;
  case cudaDevAttrComputeCapabilityMajor:
    *value = 9;
    return cudaSuccess;
  case cudaDevAttrComputeCapabilityMinor:
    *value = 0;
    return cudaSuccess;
  default:
    return fail(cudaErrorInvalidValue);
  }
}
cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  *total = kDeviceBytes;
  *free = kDeviceBytes - std::min(allocated, kDeviceBytes);
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  *p = nullptr;
  if (allocated + bytes > kDeviceBytes)
    return fail(cudaErrorMemoryAllocation);
  const size_t rounded = std::max<size_t>((bytes + 255) / 256 * 256, 256);
  void *m = std::aligned_alloc(256, rounded);
  if (!m)
    return fail(cudaErrorMemoryAllocation);
  // Fresh device memory is not zero: NaNs show a read before a write.
  std::memset(m, 0xff, rounded);
  allocations[static_cast<char *>(m)] = bytes;
  allocated += rounded;
  *p = m;
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void **p, size_t bytes) {
  return cudaMalloc(p, bytes);
}
cudaError_t cudaFree(void *p) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (!p)
    return cudaSuccess;
  auto it = allocations.find(static_cast<char *>(p));
  if (it == allocations.end())
    fatal("cudaFree of memory cudaMalloc did not give");
  allocated -= std::max<size_t>((it->second + 255) / 256 * 256, 256);
  allocations.erase(it);
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }

static cudaError_t checkCopy(const void *dst, const void *src, size_t bytes,
                             cudaMemcpyKind kind, const char *what) {
  const bool dstDevice =
      kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool srcDevice =
      kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dstDevice && !isDeviceMemory(dst, bytes)) ||
      (srcDevice && !isDeviceMemory(src, bytes))) {
    std::fprintf(stderr,
                 "sprt emu: %s of %zu bytes: its device side is not memory "
                 "cudaMalloc gave (or runs past its end)\n",
                 what, bytes);
    return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            enum cudaMemcpyKind kind, cudaStream_t s) {
  if (bytes == 0)
    return cudaSuccess;
  if (cudaError_t e = checkCopy(dst, src, bytes, kind, "cudaMemcpyAsync"))
    return e;
  return fail(enqueue(s, [=] { std::memmove(dst, src, bytes); }));
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       enum cudaMemcpyKind kind) {
  if (captures > 0)
    return fail(cudaErrorStreamCaptureImplicit);
  return cudaMemcpyAsync(dst, src, bytes, kind, nullptr);
}
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t s) {
  if (width == 0 || height == 0)
    return cudaSuccess;
  if (width > dpitch || width > spitch)
    return fail(cudaErrorInvalidPitchValue);
  const size_t dBytes = dpitch * (height - 1) + width;
  const size_t sBytes = spitch * (height - 1) + width;
  if (cudaError_t e = checkCopy(
          dst, src, std::max(dBytes, sBytes) == dBytes ? dBytes : dBytes, kind,
          "cudaMemcpy2DAsync"))
    return e;
  if (cudaError_t e = checkCopy(src, src, sBytes,
                                kind == cudaMemcpyDeviceToHost ||
                                        kind == cudaMemcpyDeviceToDevice
                                    ? cudaMemcpyDeviceToDevice
                                    : cudaMemcpyHostToHost,
                                "cudaMemcpy2DAsync"))
    return e;
  return fail(enqueue(s, [=] {
    for (size_t r = 0; r < height; ++r)
      std::memmove(static_cast<char *>(dst) + r * dpitch,
                   static_cast<const char *>(src) + r * spitch, width);
  }));
}
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s) {
  if (bytes == 0)
    return cudaSuccess;
  if (!isDeviceMemory(p, bytes)) {
    std::fprintf(stderr,
                 "sprt emu: cudaMemsetAsync of %zu bytes outside memory "
                 "cudaMalloc gave\n",
                 bytes);
    return fail(cudaErrorInvalidValue);
  }
  return fail(enqueue(s, [=] { std::memset(p, value, bytes); }));
}
cudaError_t cudaMemset(void *p, int value, size_t bytes) {
  if (captures > 0)
    return fail(cudaErrorStreamCaptureImplicit);
  return cudaMemsetAsync(p, value, bytes, nullptr);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int) {
  *s = new CUstream_st;
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t *s) {
  return cudaStreamCreateWithFlags(s, 0);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if ((s && s->capture) || (!s && captures > 0))
    return invalidate(s, cudaErrorStreamCaptureUnsupported);
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
  std::shared_ptr<Capture> c = e->capture;
  if (!c || c->ended) // not recorded in a capture under way
    return cudaSuccess;
  if (!s)
    return fail(cudaErrorStreamCaptureImplicit);
  if (!s->capture) { // s joins the capture
    s->capture = c;
    s->work = s->rejoined = 0;
    c->joined.push_back(s);
  } else if (s->capture != c) {
    return invalidate(s, cudaErrorStreamCaptureMerge);
  }
  if (e->stream != s)
    e->stream->rejoined = std::max(e->stream->rejoined, e->work);
  return cudaSuccess;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode) {
  if (!s || s->capture)
    return fail(cudaErrorIllegalState);
  s->capture = std::make_shared<Capture>();
  s->capture->origin = s;
  s->work = s->rejoined = 0;
  ++captures;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph) {
  *graph = nullptr;
  if (!s || !s->capture)
    return fail(cudaErrorIllegalState);
  std::shared_ptr<Capture> c = s->capture;
  if (c->origin != s)
    return invalidate(s, cudaErrorStreamCaptureUnmatched);
  // Every joined stream leaves the capture; one whose last work no
  // capturing stream waited for makes it fail.
  bool unjoined = false;
  for (cudaStream_t j : c->joined) {
    unjoined |= j->work > j->rejoined;
    j->capture = nullptr;
  }
  s->capture = nullptr;
  c->ended = true;
  --captures;
  if (c->invalidated)
    return fail(cudaErrorStreamCaptureInvalidated);
  if (unjoined)
    return fail(cudaErrorStreamCaptureUnjoined);
  *graph = new CUgraph_st{c->ops};
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s,
                                  enum cudaStreamCaptureStatus *status) {
  *status = !s || !s->capture         ? cudaStreamCaptureStatusNone
            : s->capture->invalidated ? cudaStreamCaptureStatusInvalidated
                                      : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long) {
  *exec = new CUgraphExec_st{graph->ops};
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
  auto ops = exec->ops;
  return fail(enqueue(s, [ops] {
    for (const auto &op : *ops)
      op();
  }));
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int) {
  *e = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  return cudaEventCreateWithFlags(e, 0);
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!s && captures > 0)
    return fail(cudaErrorStreamCaptureImplicit);
  e->capture = s ? s->capture : nullptr;
  e->stream = s;
  e->work = s ? s->work : 0;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.0f;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *, enum cudaFuncAttribute attr,
                                 int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize)
    return cudaSuccess;
  if (value < 0 || size_t(value) > kSharedOptIn)
    return fail(cudaErrorInvalidValue);
  sharedAllowed = std::max(sharedAllowed, size_t(value));
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *blocks, const void *, int blockSize, size_t, unsigned int) {
  *blocks = blockSize > 0 ? std::max(1, 2048 / blockSize) : 0;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks,
                                                          const void *kernel,
                                                          int blockSize,
                                                          size_t shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      blocks, kernel, blockSize, shared, 0);
}

} // extern "C"

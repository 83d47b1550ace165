//===- Device.cu - the CUDA backend's device, memory and stream -----------===//
//
// sprt/device.h on CUDA: one device per process (local_rank % count), one
// non-blocking compute stream created at init that every kernel, cuBLAS call
// and copy of this backend is ordered on, and one cuBLAS handle bound to it.
// Allocations are cudaMalloc'd and zeroed on the stream (cudaMemsetAsync),
// so they read as zero to any later work on it.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "LtGemm.cuh"
#include "sprt/device.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>

namespace sprt::cuda {
namespace {

struct DeviceState {
  bool ready = false;
  int device = -1;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  bool cublasWorkspace = false; // cublas()'s, set on first use
  std::string error; // the last init failure, returned by sprt_device_init
  void *scratch[int(Scratch::Count)] = {};
  size_t scratchBytes[int(Scratch::Count)] = {};
  // Captures in progress and graphs alive: while there is one, a graph may
  // hold pointers into the scratch buffers, so one that grows is left
  // allocated (and counted) until the process ends, not freed.
  int graphUsers = 0;
};

DeviceState &state() {
  static DeviceState s;
  return s;
}

std::mutex &initMutex() {
  static std::mutex m;
  return m;
}

std::string cudaMessage(cudaError_t err) {
  return std::string("CUDA error: ") + cudaGetErrorString(err) + " (" +
         cudaGetErrorName(err) + ")";
}

// Initialises the device; returns the empty string or the failure message.
std::string initDevice(int64_t localRank) {
  DeviceState &s = state();
  if (s.ready)
    return {};
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError(); // clear the sticky-free error state
    return cudaMessage(err);
  }
  if (count <= 0)
    return "no CUDA device";
  const int device = int(((localRank % count) + count) % count);
  if ((err = cudaSetDevice(device)) != cudaSuccess)
    return cudaMessage(err);
  cudaStream_t stream = nullptr;
  if ((err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) !=
      cudaSuccess)
    return cudaMessage(err);
  cublasHandle_t handle = nullptr;
  cublasStatus_t st = cublasCreate(&handle);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasSetStream(handle, stream);
  // fp32 GEMMs in fp32: CUBLAS_DEFAULT_MATH never uses TF32 tensor cores for
  // cublasSgemm (only CUBLAS_TF32_TENSOR_OP_MATH would); set explicitly so
  // that no library default can change it.
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
  if (st != CUBLAS_STATUS_SUCCESS)
    return std::string("cuBLAS error: ") + cublasGetStatusString(st) + " (" +
           cublasGetStatusName(st) + ")";
  s.device = device;
  s.stream = stream;
  s.cublas = handle;
  s.ready = true;
  return {};
}

DeviceState &ready() {
  DeviceState &s = state();
  if (s.ready)
    return s;
  std::lock_guard<std::mutex> lock(initMutex());
  std::string err = initDevice(0);
  if (!err.empty())
    throw std::runtime_error("sprt cuda backend: " + err);
  return s;
}

std::atomic<sprt_scratch_observer_t> scratchObserver{nullptr};

// Tells the scratch observer (sprt/device.h) about a scratch slot's bytes.
void reportScratch(int64_t deltaBytes) {
  if (sprt_scratch_observer_t observer = scratchObserver.load())
    observer(deltaBytes);
}

cudaStream_t streamOf(sprt_stream_t s) {
  return s ? reinterpret_cast<cudaStream_t>(s) : stream();
}

} // namespace

void throwCudaError(cudaError_t err, const char *what) {
  cudaGetLastError(); // clear a non-sticky error so later calls can proceed
  throw std::runtime_error(cudaMessage(err) + " in " + what);
}

void throwCublasError(cublasStatus_t status, const char *what) {
  throw std::runtime_error(std::string("cuBLAS error: ") +
                           cublasGetStatusString(status) + " (" +
                           cublasGetStatusName(status) + ") in " + what);
}

cudaStream_t stream() { return ready().stream; }
cublasHandle_t cublas() {
  DeviceState &s = ready();
  if (!s.cublasWorkspace) {
    // cuBLAS's workspace, ours and set once (32 MiB, its size for Hopper):
    // cuBLAS then allocates nothing while a step is captured as a CUDA
    // graph, as its documentation asks of graph capture.
    constexpr size_t kBytes = size_t(32) << 20;
    SPRT_CUBLAS_CHECK(cublasSetWorkspace(
        s.cublas, scratch(Scratch::CublasWorkspace, kBytes), kBytes));
    s.cublasWorkspace = true;
  }
  return s.cublas;
}

void checkRows(int64_t rows, const char *what) {
  if (rows > int64_t(0x7fffffff))
    throw std::runtime_error(std::string("sprt cuda backend: ") + what +
                             ": too many rows for one grid");
}

void *scratch(Scratch slot, size_t bytes) {
  DeviceState &s = ready();
  const int i = int(slot);
  if (s.scratchBytes[i] >= bytes && s.scratch[i])
    return s.scratch[i];
  // Left allocated while a captured step's kernels may read it when
  // replayed (an evaluation step that grew it runs between replays).
  if (s.scratch[i] && s.graphUsers == 0) {
    SPRT_CUDA_CHECK(cudaFree(s.scratch[i])); // synchronises the device
    reportScratch(-int64_t(s.scratchBytes[i]));
  }
  s.scratch[i] = nullptr;
  s.scratchBytes[i] = 0;
  size_t rounded = (bytes + 255) / 256 * 256;
  if (rounded == 0)
    rounded = 256;
  // While capturing, a failure is the capture's (noted, not thrown): the
  // slot then stays empty.
  SPRT_CUDA_CHECK(cudaMalloc(&s.scratch[i], rounded));
  if (s.scratch[i]) {
    s.scratchBytes[i] = rounded;
    reportScratch(int64_t(rounded));
  }
  return s.scratch[i];
}

} // namespace sprt::cuda

using namespace sprt::cuda;

namespace {
/// This thread's capture (sprt_graph_begin_capture .. _end_capture) and its
/// first error.
thread_local bool capturing = false;
thread_local std::string captureError;
} // namespace

bool sprt::cuda::noteCaptureError(const std::string &error) {
  if (!capturing)
    return false;
  if (captureError.empty())
    captureError = error;
  return true;
}

struct sprt_graph {
  cudaGraphExec_t exec;
};

extern "C" void *sprt_host_alloc(int64_t bytes) {
  void *p = nullptr;
  if (cudaMallocHost(&p, size_t(bytes > 0 ? bytes : 1)) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return p;
}

extern "C" void sprt_host_free(void *ptr) {
  if (ptr)
    SPRT_CUDA_CHECK(cudaFreeHost(ptr));
}

extern "C" int sprt_graph_supported(void) { return 1; }

extern "C" void sprt_graph_begin_capture(sprt_stream_t s) {
  captureError.clear();
  ++state().graphUsers;
  // Relaxed: the host code between the step's launches may allocate (a
  // cuBLASLt plan, a first-use scratch buffer) without ending the capture.
  SPRT_CUDA_CHECK(
      cudaStreamBeginCapture(streamOf(s), cudaStreamCaptureModeRelaxed));
  capturing = true;
}

extern "C" sprt_graph_t sprt_graph_end_capture(sprt_stream_t s,
                                               const char **why) {
  capturing = false;
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(streamOf(s), &graph);
  if (err != cudaSuccess && captureError.empty())
    captureError = std::string(cudaGetErrorName(err)) + " (" +
                   cudaGetErrorString(err) + ") ending the capture";
  cudaGraphExec_t exec = nullptr;
  if (captureError.empty()) {
    err = cudaGraphInstantiate(&exec, graph, 0);
    if (err != cudaSuccess)
      captureError = std::string(cudaGetErrorName(err)) + " (" +
                     cudaGetErrorString(err) + ") instantiating the graph";
  }
  if (graph)
    (void)cudaGraphDestroy(graph);
  if (!captureError.empty()) {
    // What an invalidated capture let run (another stream's work that never
    // joined it) ends before the step runs eagerly.
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError(); // the failed capture's errors, cleared
    static thread_local std::string message;
    message = captureError;
    if (why)
      *why = message.c_str();
    --state().graphUsers;
    return nullptr;
  }
  return new sprt_graph{exec}; // counted in graphUsers until destroyed
}

extern "C" void sprt_graph_launch(sprt_graph_t graph, sprt_stream_t s) {
  SPRT_CUDA_CHECK(cudaGraphLaunch(graph->exec, streamOf(s)));
}

extern "C" void sprt_graph_destroy(sprt_graph_t graph) {
  if (!graph)
    return;
  SPRT_CUDA_CHECK(cudaGraphExecDestroy(graph->exec));
  delete graph;
  --state().graphUsers;
}

extern "C" int sprt_graph_note_error(const char *error) {
  return noteCaptureError(error) ? 1 : 0;
}

extern "C" const char *sprt_backend_name(void) { return "cuda"; }

extern "C" sprt_step_values *sprt_step_values_host(void) {
  // Pinned: the step's asynchronous upload (captured into a CUDA graph too)
  // reads it when it runs. Never freed: one per process.
  static sprt_step_values *values = [] {
    void *p = nullptr;
    SPRT_CUDA_CHECK(cudaMallocHost(&p, sizeof(sprt_step_values)));
    std::memset(p, 0, sizeof(sprt_step_values));
    return static_cast<sprt_step_values *>(p);
  }();
  return values;
}

extern "C" sprt_step_values *sprt_step_values_device(void) {
  // Zeroed once, ordered before every later use on the compute stream (a
  // kernel called before any step reads a salt of 0).
  static sprt_step_values *values = [] {
    void *p = scratch(Scratch::StepValues, sizeof(sprt_step_values));
    SPRT_CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof(sprt_step_values), stream()));
    return static_cast<sprt_step_values *>(p);
  }();
  return values;
}

extern "C" const char *sprt_device_init(int64_t local_rank) {
  std::lock_guard<std::mutex> lock(initMutex());
  DeviceState &s = state();
  s.error = initDevice(local_rank);
  return s.error.empty() ? nullptr : s.error.c_str();
}

extern "C" const char *sprt_device_reserve_workspaces(void) {
  static std::string why;
  try {
    cublas();
    ltReserveWorkspace();
    return nullptr;
  } catch (const std::exception &e) {
    why = std::string("the backend's workspaces (cuBLAS's and cuBLASLt's, "
                      "32 MiB each) could not be allocated: ") +
          e.what();
    return why.c_str();
  }
}

extern "C" int sprt_device_memory(int64_t *free_bytes, int64_t *total_bytes) {
  size_t freeMem = 0, totalMem = 0;
  stream(); // the device, initialised
  if (cudaMemGetInfo(&freeMem, &totalMem) != cudaSuccess) {
    cudaGetLastError();
    return 1;
  }
  *free_bytes = int64_t(freeMem);
  *total_bytes = int64_t(totalMem);
  return 0;
}

extern "C" int64_t sprt_device_id(void) {
  stream();
  return state().device;
}

extern "C" int64_t sprt_device_key(void) {
  stream();
  cudaDeviceProp p;
  SPRT_CUDA_CHECK(cudaGetDeviceProperties(&p, state().device));
  uint64_t h = 1469598103934665603ull; // FNV-1a of the UUID's bytes
  for (char b : p.uuid.bytes)
    h = (h ^ uint8_t(b)) * 1099511628211ull;
  return int64_t(h & 0x3fffffff);
}

extern "C" void *sprt_device_alloc(int64_t bytes) {
  cudaStream_t st = stream();
  size_t rounded = size_t((bytes + 63) / 64 * 64);
  if (rounded == 0)
    rounded = 64;
  void *p = nullptr;
  cudaError_t err = cudaMalloc(&p, rounded);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  SPRT_CUDA_CHECK(err);
  SPRT_CUDA_CHECK(cudaMemsetAsync(p, 0, rounded, st));
  return p;
}

extern "C" void sprt_device_free(void *ptr) {
  if (ptr)
    SPRT_CUDA_CHECK(cudaFree(ptr));
}

extern "C" void sprt_set_scratch_observer(sprt_scratch_observer_t observer) {
  scratchObserver.store(observer);
}

extern "C" sprt_stream_t sprt_current_stream(void) {
  return reinterpret_cast<sprt_stream_t>(stream());
}

extern "C" void sprt_stream_synchronize(sprt_stream_t s) {
  SPRT_CUDA_CHECK(cudaStreamSynchronize(streamOf(s)));
}

extern "C" void sprt_memcpy_to_device(void *dst, const void *src, int64_t bytes,
                                      sprt_stream_t s) {
  if (bytes > 0)
    SPRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, size_t(bytes),
                                    cudaMemcpyHostToDevice, streamOf(s)));
}

extern "C" void sprt_memcpy_to_host(void *dst, const void *src, int64_t bytes,
                                    sprt_stream_t s) {
  if (bytes > 0)
    SPRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, size_t(bytes),
                                    cudaMemcpyDeviceToHost, streamOf(s)));
}

extern "C" void sprt_copy_2d(void *dst, int64_t dst_pitch, const void *src,
                             int64_t src_pitch, int64_t width_bytes,
                             int64_t height, sprt_stream_t s) {
  if (width_bytes <= 0 || height <= 0)
    return;
  cudaStream_t st = streamOf(s);
  // cudaMemcpy2D rejects pitches above cudaDevAttrMaxPitch (2^31 - 1 bytes):
  // a contiguous block (copyFloats' one row of a whole tensor) is one 1-D
  // copy, and rows too far apart are copied one by one.
  if (height == 1 || (dst_pitch == width_bytes && src_pitch == width_bytes)) {
    SPRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, size_t(width_bytes * height),
                                    cudaMemcpyDeviceToDevice, st));
    return;
  }
  if (dst_pitch > INT32_MAX || src_pitch > INT32_MAX) {
    for (int64_t i = 0; i < height; ++i)
      SPRT_CUDA_CHECK(
          cudaMemcpyAsync(static_cast<char *>(dst) + i * dst_pitch,
                          static_cast<const char *>(src) + i * src_pitch,
                          size_t(width_bytes), cudaMemcpyDeviceToDevice, st));
    return;
  }
  SPRT_CUDA_CHECK(cudaMemcpy2DAsync(
      dst, size_t(dst_pitch), src, size_t(src_pitch), size_t(width_bytes),
      size_t(height), cudaMemcpyDeviceToDevice, st));
}

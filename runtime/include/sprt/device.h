/*===- sprt/device.h - memory and streams, backend-neutral ----------------===*
 *
 * What compiled code and main() need from a backend besides kernels:
 * device memory and an ordered queue of work. Every sprt_* kernel and
 * collective is issued on the current stream of its backend and may run
 * after the call returns; results are visible to the host after
 * sprt_stream_synchronize. On the CPU backend, memory is host memory and the
 * stream runs each call to completion before returning, so synchronizing is
 * free; a CUDA backend implements the same calls with cudaMalloc, cudaStream
 * and NCCL on that stream, behind the same compiled code.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_DEVICE_H
#define SPRT_DEVICE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sprt_stream *sprt_stream_t;

/* The backend this library was built for ("cpu", "cuda"). */
const char *sprt_backend_name(void);

/* Selects this rank's device: device local_rank % (number of devices), where
 * local_rank is the rank's index among the ranks of its node. NULL on
 * success, else a message naming the error (a static string). Called once,
 * before any other call of this header. The CPU backend has nothing to
 * select. */
const char *sprt_device_init(int64_t local_rank);

/* The device memory free for allocations and the device's total, in
 * bytes; 0 on success. The CPU backend reports the host's available memory
 * (MemAvailable) and its total. */
int sprt_device_memory(int64_t *free_bytes, int64_t *total_bytes);

/* This rank's device among those it sees (the CPU backend: 0, the host's
 * memory; CUDA: the device ordinal, as CUDA_VISIBLE_DEVICES numbers them).
 * After sprt_device_init. */
int64_t sprt_device_id(void);
/* A key that the ranks of one node using one physical device share, and no
 * others (the CPU backend: 0; CUDA: from the device's UUID, so ranks that
 * each see only their own GPU, all numbered 0, are told apart), below 2^30.
 * After sprt_device_init. */
int64_t sprt_device_key(void);

/* Allocates now the workspaces the backend keeps whatever the program (CUDA:
 * cuBLAS's and cuBLASLt's, 32 MiB each; the CPU backend: none), which it
 * would otherwise allocate at its first GEMM, so that the plan's fit is
 * checked against the memory they leave. NULL, or why they could not be
 * had. After sprt_device_init and sprt_set_scratch_observer. */
const char *sprt_device_reserve_workspaces(void);

/* Zero-initialised device memory, 64-byte aligned; NULL if out of memory. */
void *sprt_device_alloc(int64_t bytes);
void sprt_device_free(void *ptr);

/* Memory a backend allocates for itself (kernel temporaries, cached
 * scratch buffers) is reported to the observer as it comes and goes:
 * observer(+bytes) when allocated, observer(-bytes) when freed, so that the
 * runtime's allocator counts it (runtime/core/Memory.h). Set it before the
 * first kernel runs; NULL (the default) stops the reports. */
typedef void (*sprt_scratch_observer_t)(int64_t delta_bytes);
void sprt_set_scratch_observer(sprt_scratch_observer_t observer);

/* The stream work is issued on, and waiting for all of it. */
sprt_stream_t sprt_current_stream(void);
void sprt_stream_synchronize(sprt_stream_t stream);

/* Copies ordered on the stream. */
void sprt_memcpy_to_device(void *dst, const void *src, int64_t bytes,
                           sprt_stream_t stream);
void sprt_memcpy_to_host(void *dst, const void *src, int64_t bytes,
                         sprt_stream_t stream);
/* Device-to-device copy of `height` rows of width_bytes bytes: row i goes
 * from src + i * src_pitch to dst + i * dst_pitch (pitches in bytes). The
 * collectives pack and unpack blocks with it. */
void sprt_copy_2d(void *dst, int64_t dst_pitch, const void *src,
                  int64_t src_pitch, int64_t width_bytes, int64_t height,
                  sprt_stream_t stream);

/* The values a step reads that change from step to step (sprt/runtime.h,
 * sprt_upload_step_values): kernels read them from the device copy when
 * they run, so a step is the same sequence of launches every time and a
 * captured one (a CUDA graph) replays with each step's values. */
enum { SPRT_MAX_HYPERPARAMETERS = 16 };
typedef struct sprt_step_values {
  /* The program's hyperparameter table (model JSON "hyperparameters"). */
  double hyperparameters[SPRT_MAX_HYPERPARAMETERS];
  /* The optimizer's step count (AdamW's bias corrections), from 1. */
  int64_t optimizer_step;
  /* XORed into the key of every dropout draw (the kernels' `seed`): the
   * step's key, the run's seed mixed with the step (the ops pass 0,
   * sprt_dropout_key); 0 until a step sets it. */
  uint64_t dropout_salt;
} sprt_step_values;
/* The process's one host copy (pinned where the backend has a device, so
 * that an asynchronous copy reads it when it runs) and device copy (zeroed
 * when first asked for); on the CPU backend they are one. The backend counts
 * the device copy as its scratch. After sprt_device_init. */
sprt_step_values *sprt_step_values_host(void);
sprt_step_values *sprt_step_values_device(void);

/* Host memory the device copies to and from asynchronously, a copy then
 * reading or writing it when it runs (pinned on the CUDA backend; plain
 * memory on the CPU backend); NULL if out of memory. */
void *sprt_host_alloc(int64_t bytes);
void sprt_host_free(void *ptr);

/* A step captured once and replayed (CUDA graphs). The CPU backend has
 * none: sprt_graph_supported() is 0 there and the others end the job.
 * Between begin and end nothing issued on the stream runs: it is recorded
 * (asynchronous copies, kernels and collectives alike), host code runs as
 * usual; the end instantiates what was recorded, or returns NULL with *why
 * set (a message the backend keeps) when the recording failed (an
 * operation that cannot be captured), every error of the failed capture
 * cleared. Launching runs the recorded work on the stream again, with the
 * buffers' contents when it runs. */
typedef struct sprt_graph *sprt_graph_t;
int sprt_graph_supported(void);
void sprt_graph_begin_capture(sprt_stream_t stream);
sprt_graph_t sprt_graph_end_capture(sprt_stream_t stream, const char **why);
void sprt_graph_launch(sprt_graph_t graph, sprt_stream_t stream);
void sprt_graph_destroy(sprt_graph_t graph);
/* While this thread captures (between begin and end): notes `error` as the
 * capture's failure (the end then returns NULL with it as *why) and returns
 * 1; otherwise returns 0. The communication layer's errors go here during a
 * capture, so that the step is run eagerly instead of the job ending (an
 * error that remains then ends it). */
int sprt_graph_note_error(const char *error);

#ifdef __cplusplus
}
#endif

#endif /* SPRT_DEVICE_H */

//===- PointToPoint.cpp - dist.send / dist.recv along one mesh axis -------===//
//
// A send never waits for its recv (pipeline parallelism relies on it: in a
// 1F1B schedule, or the tied parameters' exchange, both ranks of a pair may
// send before either receives). sprt_send copies the tensor into a staging
// buffer of the runtime's, starts the send from there (Comm::startSend) and
// keeps the request; sprt_complete_sends, called when the step returns (the
// pipeline's seqpar_step, and main() after every step), waits for every
// send started and returns the staging buffers to a pool the next sends
// reuse (freed with the mesh). A recv blocks until its data arrived.
// The time spent waiting in both is counted (the pipeline bubble: Bubble.h).
// sprt_flush_sends issues the sends a communicator has queued (NCCL's:
// Comm::flush), for a pipeline stage's warm-up sends that no recv follows.
//
//===----------------------------------------------------------------------===//

#include "PointToPoint.h"
#include "Collectives.h"
#include "Failure.h"
#include "Memory.h"
#include "Mesh.h"
#include "Trace.h"

#include "sprt/device.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <chrono>
#include <vector>

using namespace sprt;

namespace {
/// A staging buffer of `capacity` bytes (device memory, counted as the
/// runtime's scratch).
struct Staging {
  void *data = nullptr;
  int64_t capacity = 0;
};

/// The sends started and not yet waited for, in the order they started,
/// and the staging buffers free for the next ones.
struct Sends {
  std::vector<std::pair<Staging, CommHandle>> started;
  std::vector<Staging> free;
};

/// Seconds waited in recvs and send completion since the last
/// takePointToPointWait (the pipeline bubble: Bubble.h).
double waited = 0.0;

/// Adds the time since `since` to `waited`.
void addWait(std::chrono::steady_clock::time_point since) {
  waited +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
          .count();
}

Sends &sends() {
  static Sends s;
  return s;
}

/// A free staging buffer of at least `bytes` bytes (the smallest), or a
/// new one.
Staging takeStaging(int64_t bytes) {
  std::vector<Staging> &free = sends().free;
  auto best = free.end();
  for (auto it = free.begin(); it != free.end(); ++it)
    if (it->capacity >= bytes &&
        (best == free.end() || it->capacity < best->capacity))
      best = it;
  if (best != free.end()) {
    Staging s = *best;
    free.erase(best);
    return s;
  }
  Staging s{allocate(bytes, MemoryCategory::Scratch), bytes};
  if (!s.data)
    fatal("cannot allocate " + std::to_string(bytes) + " bytes of " +
          sprt_backend_name() + " memory to stage a send");
  return s;
}

int peer(int64_t offset, int32_t axis) {
  int64_t n = sprt_axis_size(axis);
  return int(((sprt_axis_coord(axis) + offset) % n + n) % n);
}
} // namespace

namespace sprt {
double takePointToPointWait() {
  double w = waited;
  waited = 0.0;
  return w;
}

/// Completes the sends and frees the staging buffers (before the mesh's
/// communicators go).
void releaseSendBuffers() {
  sprt_complete_sends();
  for (Staging &s : sends().free)
    release(s.data);
  sends().free.clear();
}
} // namespace sprt

extern "C" void sprt_send(const void *in, int64_t bytes, int64_t offset,
                          int32_t axis) {
  TraceSpan span("send", axis, peer(offset, axis));
  countBytes(axis, bytes);
  Staging staged;
  if (bytes > 0) {
    staged = takeStaging(bytes);
    // On the compute stream, after the work that wrote `in`: the send
    // (ordered after it by Comm::startSend) reads the copy.
    sprt_copy_2d(staged.data, bytes, in, bytes, bytes, 1,
                 sprt_current_stream());
  }
  CommHandle request =
      mesh().comm(axis).startSend(staged.data, bytes, peer(offset, axis));
  sends().started.push_back({staged, std::move(request)});
}

extern "C" void sprt_complete_sends(void) {
  Sends &s = sends();
  if (s.started.empty())
    return;
  auto start = std::chrono::steady_clock::now();
  for (auto &[staged, request] : s.started) {
    request->wait();
    if (staged.data)
      s.free.push_back(staged);
  }
  s.started.clear();
  addWait(start);
}

extern "C" void sprt_flush_sends(int32_t axis) {
  TraceSpan span("flush_sends", axis);
  mesh().comm(axis).flush();
}

extern "C" int64_t sprt_pending_sends(void) {
  return int64_t(sends().started.size());
}

extern "C" void sprt_recv(void *out, int64_t bytes, int64_t offset,
                          int32_t axis) {
  TraceSpan span("recv", axis, peer(offset, axis));
  auto start = std::chrono::steady_clock::now();
  mesh().comm(axis).recv(out, bytes, peer(offset, axis));
  addWait(start);
}

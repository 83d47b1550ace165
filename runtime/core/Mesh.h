//===- Mesh.h - runtime state of the mesh -----------------------*- C++ -*-===//

#ifndef SPRT_CORE_MESH_H
#define SPRT_CORE_MESH_H

#include "Comm.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sprt {

struct Mesh {
  std::vector<int64_t> sizes, coords, bytesSent;
  /// The axes' names, for messages.
  std::vector<std::string> names;
  /// One per axis (sprt_mesh_init to sprt_mesh_finalize).
  std::vector<std::unique_ptr<Comm>> comms;
  int worldRank = 0, worldSize = 1;
  uint64_t seed = 0;
  int64_t step = 1;
  /// Whether a step has begun (sprt_set_step): before, operations are the
  /// start-up's.
  bool stepping = false;
  /// AdamW's step count: the steps whose update was applied, this one
  /// included (main() counts the skipped ones).
  int64_t optimizerStep = 1;
  /// The micro-batch the ops being called belong to, and their number in
  /// the step (sprt_set_micro_batch; (0, 1) again at each sprt_set_step).
  int64_t microBatch = 0, microBatches = 1;

  Comm &comm(int32_t axis) const { return *comms.at(size_t(axis)); }
};

/// The process's mesh (one per process).
Mesh &mesh();

/// While main() captures a step (sprt_capture_begin .. _end, runtime.h):
/// notes the first reason the captured step cannot stand for later steps
/// (a value it passes by value that changes from step to step); nothing
/// when not capturing.
void refuseCapture(const std::string &why);
/// The dropout salt of the current step and seed: the key of the step's
/// masks, the run's seed mixed with the step (sprt_step_values::
/// dropout_salt).
uint64_t stepDropoutSalt();

/// Completes the sends started (sprt_send) and frees their staging buffers
/// (PointToPoint.cpp; sprt_mesh_finalize calls it).
void releaseSendBuffers();
/// Frees ring attention's buffers (RingAttention.cpp; sprt_mesh_finalize
/// calls it).
void releaseRingBuffers();

} // namespace sprt

#endif // SPRT_CORE_MESH_H

//===- Mesh.h - runtime state of the mesh -----------------------*- C++ -*-===//

#ifndef SPRT_CORE_MESH_H
#define SPRT_CORE_MESH_H

#include <cstdint>
#include <mpi.h>
#include <string>
#include <vector>

namespace sprt {

struct Mesh {
  std::vector<int64_t> sizes, coords, bytesSent;
  /// The axes' names, for messages.
  std::vector<std::string> names;
  std::vector<MPI_Comm> comms;
  int worldRank = 0, worldSize = 1;
  uint64_t seed = 0;
  int64_t arenaHighWater = 0;
  int64_t step = 1;
  /// AdamW's step count: the steps whose update was applied, this one
  /// included.
  int64_t optimizerStep = 1;
  /// Set when this step's gradient norm is not finite: its parameter
  /// updates are skipped (on every rank: the norm is global).
  bool updateSkipped = false;

  MPI_Comm comm(int32_t axis) const { return comms.at(axis); }
};

/// The process's mesh (one per process).
Mesh &mesh();

} // namespace sprt

#endif // SPRT_CORE_MESH_H

//===- Mesh.h - runtime state of the mesh -----------------------*- C++ -*-===//

#ifndef SPRT_CORE_MESH_H
#define SPRT_CORE_MESH_H

#include <cstdint>
#include <mpi.h>
#include <vector>

namespace sprt {

struct Mesh {
  std::vector<int64_t> sizes, coords, bytesSent;
  std::vector<MPI_Comm> comms;
  int worldRank = 0, worldSize = 1;
  uint64_t seed = 0;
  int64_t arenaHighWater = 0;
  int64_t step = 1;

  MPI_Comm comm(int32_t axis) const { return comms.at(axis); }
};

/// The process's mesh (one per process).
Mesh &mesh();

} // namespace sprt

#endif // SPRT_CORE_MESH_H

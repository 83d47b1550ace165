//===- Collectives.h - shared by the collectives' files ---------*- C++ -*-===//

#ifndef SPRT_CORE_COLLECTIVES_H
#define SPRT_CORE_COLLECTIVES_H

#include <cstdint>

namespace sprt {

/// Adds `bytes` to what this rank sent on mesh axis `axis` (the ring
/// accounting of sprt_bytes_sent).
void countBytes(int32_t axis, int64_t bytes);

} // namespace sprt

#endif // SPRT_CORE_COLLECTIVES_H

//===- Collectives.h - shared by the collectives' files ---------*- C++ -*-===//

#ifndef SPRT_CORE_COLLECTIVES_H
#define SPRT_CORE_COLLECTIVES_H

#include "Comm.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace sprt {

/// Adds `bytes` to what this rank sent on mesh axis `axis` (the ring
/// accounting of sprt_bytes_sent).
void countBytes(int32_t axis, int64_t bytes);

/// Registers the started `request` on mesh axis `axis` for sprt_wait, which
/// waits for it and then runs `finish` (may be empty); returns the handle.
int64_t trackStarted(std::unique_ptr<CommRequest> request,
                     std::function<void()> finish, int32_t axis);

} // namespace sprt

#endif // SPRT_CORE_COLLECTIVES_H

//===- Startup.h - how long a program takes to reach step 1 -----*- C++ -*-===//
//
// Start-up is the time from the process's start (as the kernel recorded
// it: loading the libraries and MPI_Init included) to the first step.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_STARTUP_H
#define SPRT_DRIVER_STARTUP_H

namespace sprt {

/// Marks main()'s entry: the start when the process's own start time cannot
/// be read. Call first thing in main().
void markMainEntry();

/// Seconds since the process started (/proc/self/stat's start time, in clock
/// ticks), or since markMainEntry() where that cannot be read.
double secondsSinceStart();

/// The host threads one of `ranksOnNode` ranks may use for start-up work:
/// the cores it may run on (its affinity mask), divided among the node's
/// ranks when they all may run on every core (not bound), at least 1.
int hostThreadsPerRank(int ranksOnNode);

} // namespace sprt

#endif // SPRT_DRIVER_STARTUP_H

//===- PointToPoint.h - the time this rank waited for its peers -*- C++ -*-===//
//
// sprt_recv's wait for its data and sprt_complete_sends' wait for the sends
// (PointToPoint.cpp) are timed: the pipeline bubble the driver reports
// (driver/Bubble.h) is these waits against the step time.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_POINTTOPOINT_H
#define SPRT_CORE_POINTTOPOINT_H

namespace sprt {

/// Seconds this rank waited in point-to-point recvs and send completion
/// since the last call; resets the count.
double takePointToPointWait();

} // namespace sprt

#endif // SPRT_CORE_POINTTOPOINT_H

//===- Watchdog.h - operations that must complete in time -------*- C++ -*-===//
//
// MPI operations are waited for on the host under the collective timeout
// (waitMpi). NCCL operations run on a stream: the host never waits for one
// directly, so a peer that stopped would leave the job hanging in the next
// stream synchronisation. The watchdog polls each watched operation from a
// thread of its own and, when one is still not done `timeout` seconds after
// it was issued, calls `expired` with its description (which ends the job:
// NcclComm reports as waitMpi does and the process exits).
//
// Backend-neutral (no CUDA here): what "done" means is the caller's
// predicate, so the logic is tested on CPU.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_COMM_WATCHDOG_H
#define SPRT_COMM_WATCHDOG_H

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>

namespace sprt {

class Watchdog {
public:
  /// Polled from the watchdog's thread: true once the operation completed
  /// (it may release what it polls then: it is not called again).
  using Done = std::function<bool()>;
  /// Called once, from the watchdog's thread, for the first operation past
  /// the timeout, with its description.
  using Expired = std::function<void(const std::string &what)>;

  Watchdog(double timeoutSeconds, double pollSeconds, Expired expired);
  /// Stops the thread; operations still watched are no longer polled.
  ~Watchdog();
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  /// Watches an operation issued now.
  void watch(std::string what, Done done);
  /// Operations watched and not yet seen done.
  size_t pending();

private:
  void run();

  struct Entry {
    std::string what;
    Done done;
    std::chrono::steady_clock::time_point issued;
  };
  const std::chrono::duration<double> timeout, poll;
  Expired expired;
  std::mutex mutex;
  std::condition_variable wake;
  std::list<Entry> entries;
  bool stopping = false, fired = false;
  std::thread thread;
};

} // namespace sprt

#endif // SPRT_COMM_WATCHDOG_H

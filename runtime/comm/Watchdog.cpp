//===- Watchdog.cpp - operations that must complete in time ---------------===//

#include "Watchdog.h"

using namespace sprt;

Watchdog::Watchdog(double timeoutSeconds, double pollSeconds, Expired expired)
    : timeout(timeoutSeconds), poll(pollSeconds), expired(std::move(expired)),
      thread([this] { run(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  thread.join();
}

void Watchdog::watch(std::string what, Done done) {
  std::lock_guard<std::mutex> lock(mutex);
  entries.push_back(
      {std::move(what), std::move(done), std::chrono::steady_clock::now()});
}

size_t Watchdog::pending() {
  std::lock_guard<std::mutex> lock(mutex);
  return entries.size();
}

void Watchdog::run() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    wake.wait_for(lock, poll, [this] { return stopping; });
    if (stopping || fired)
      continue;
    auto now = std::chrono::steady_clock::now();
    for (auto it = entries.begin(); it != entries.end();) {
      if (it->done()) {
        it = entries.erase(it);
        continue;
      }
      // Operations complete in issue order on their stream, so only the
      // oldest can be the one that stopped; any past the timeout ends it.
      if (now - it->issued > timeout) {
        fired = true;
        std::string what = it->what;
        lock.unlock();
        expired(what);
        lock.lock();
        break;
      }
      ++it;
    }
  }
}

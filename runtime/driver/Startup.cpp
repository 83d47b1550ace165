//===- Startup.cpp - how long a program takes to reach step 1 -------------===//

#include "Startup.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

#include <sched.h>
#include <unistd.h>

using namespace sprt;

static std::chrono::steady_clock::time_point mainEntry =
    std::chrono::steady_clock::now();

void sprt::markMainEntry() { mainEntry = std::chrono::steady_clock::now(); }

/// The process's start in seconds since boot, or a negative number.
static double processStartSinceBoot() {
  std::FILE *f = std::fopen("/proc/self/stat", "r");
  if (!f)
    return -1.0;
  char buf[4096];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // The command name (field 2) is in parentheses and may hold spaces: the
  // fields after its closing one are space-separated; start time is field
  // 22, the 20th after it.
  const char *p = std::strrchr(buf, ')');
  if (!p)
    return -1.0;
  int field = 2;
  unsigned long long ticks = 0;
  for (; *p && field < 22; ++p)
    if (*p == ' ' && ++field == 22 && std::sscanf(p + 1, "%llu", &ticks) != 1)
      return -1.0;
  long hz = sysconf(_SC_CLK_TCK);
  if (field != 22 || hz <= 0)
    return -1.0;
  return double(ticks) / double(hz);
}

double sprt::secondsSinceStart() {
  double start = processStartSinceBoot();
  struct timespec now;
  if (start >= 0.0 && clock_gettime(CLOCK_BOOTTIME, &now) == 0) {
    double seconds = double(now.tv_sec) + 1e-9 * double(now.tv_nsec) - start;
    if (seconds >= 0.0)
      return seconds;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       mainEntry)
      .count();
}

int sprt::hostThreadsPerRank(int ranksOnNode) {
  int cores = int(std::thread::hardware_concurrency());
  cpu_set_t set;
  int allowed =
      sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : cores;
  if (allowed <= 0)
    return 1;
  // Bound ranks (mpirun's default at few ranks) already have their share.
  if (cores > 0 && allowed >= cores)
    allowed /= std::max(ranksOnNode, 1);
  return std::max(allowed, 1);
}

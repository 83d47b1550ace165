//===- Failure.cpp - one rank's failure ends every rank -------------------===//

#include "Failure.h"
#include "Mesh.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

using namespace sprt;

namespace {
/// How long a failing rank waits for the others to fail too before it
/// aborts the job.
constexpr double kGraceSeconds = 2.0;

/// "all_gather over mesh axis 'tp' (2 ranks) at step 3" (or "at start-up").
std::string describe(const char *what, int32_t axis) {
  const Mesh &m = mesh();
  std::string where = "every rank";
  if (axis >= 0 && size_t(axis) < m.sizes.size()) {
    std::string name = size_t(axis) < m.names.size()
                           ? "'" + m.names[size_t(axis)] + "'"
                           : std::to_string(axis);
    where = "mesh axis " + name + " (" + std::to_string(m.sizes[size_t(axis)]) +
            " ranks)";
  }
  return std::string(what) + " over " + where +
         (m.stepping ? " at step " + std::to_string(m.step) : " at start-up");
}
} // namespace

/// An exception nothing caught (std::bad_alloc in a kernel, say): one line
/// naming it, then the job ends like any failure of one rank.
[[noreturn]] static void onTerminate() {
  std::string what = "an unknown exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc &) {
      what = "out of memory (std::bad_alloc)";
    } catch (const std::exception &x) {
      what = x.what();
    } catch (...) {
    }
  }
  std::fprintf(stderr, "error: rank %d: internal error: %s; aborting the job\n",
               World::rank(), what.c_str());
  std::fflush(stderr);
  World::abort();
}

void sprt::initFailure() {
  World::setDescribe(describe);
  std::set_terminate(onTerminate);
}

void sprt::setCollectiveTimeout(double seconds) { World::setTimeout(seconds); }

void sprt::fatal(const std::string &message) {
  std::fprintf(stderr, "error: rank %d: %s\n", World::rank(), message.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  if (World::size() > 1 && !World::failTogether(kGraceSeconds)) {
    std::fprintf(stderr,
                 "error: rank %d: the other ranks did not fail; aborting "
                 "the job\n",
                 World::rank());
    std::fflush(stderr);
    World::abort();
  }
  World::finalize();
  std::exit(1);
}

bool sprt::allAgree(bool ok) { return World::allAgree(ok); }

void sprt::barrier() { World::barrier(); }

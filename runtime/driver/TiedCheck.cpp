//===- TiedCheck.cpp - the copies of a tied weight stay bitwise equal -----===//

#include "TiedCheck.h"

#include "DType.h"
#include "Failure.h"
#include "Memory.h"
#include "Mesh.h"

#include "sprt/device.h"
#include "sprt/runtime.h"

#include <xxhash.h>

#include <cstdio>
#include <cstdlib>

using namespace sprt;

uint64_t sprt::hashBytes(const void *data, int64_t bytes) {
  return uint64_t(XXH3_64bits(data, size_t(bytes)));
}

std::vector<int64_t> sprt::tiedParams(const Model &model) {
  std::vector<int64_t> tied;
  for (size_t i = 0; i < model.params.size(); ++i)
    if (model.params[i].stages.size() > 1)
      tied.push_back(int64_t(i));
  return tied;
}

static std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v);
  return buf;
}

std::string sprt::compareTiedCopies(const Model &model,
                                    const std::vector<int64_t> &tied,
                                    const std::vector<uint64_t> &gathered,
                                    int64_t stages, int64_t step) {
  size_t words = 1 + tied.size();
  for (size_t k = 0; k < tied.size(); ++k) {
    const ParamInfo &p = model.params[size_t(tied[k])];
    int64_t first = p.stages.front();
    uint64_t want = gathered[size_t(first) * words + 1 + k];
    for (int64_t s : p.stages) {
      if (s < 0 || s >= stages)
        continue;
      uint64_t got = gathered[size_t(s) * words + 1 + k];
      if (got == want)
        continue;
      return "--check-tied: after step " + std::to_string(step) +
             ", the copies of '" + p.name + "' differ: pipeline stage " +
             std::to_string(first) + " (rank " +
             std::to_string(gathered[size_t(first) * words]) +
             ") holds bytes hashing to " + hex(want) + ", stage " +
             std::to_string(s) + " (rank " +
             std::to_string(gathered[size_t(s) * words]) + ") to " + hex(got);
    }
  }
  return "";
}

/// Test-only: SPRT_TEST_CORRUPT_TIED=R makes world rank R flip the lowest
/// bit of the first byte of its copy of the first tied parameter before the
/// check of step 1 (test/e2e/pp-tied.test proves the check can fail).
static void corruptForTest(const Model &model, float *const *shards,
                           const std::vector<int64_t> &tied, int64_t step) {
  const char *env = std::getenv("SPRT_TEST_CORRUPT_TIED");
  if (!env || step != 1 || std::atoll(env) != sprt_world_rank())
    return;
  const ParamInfo &p = model.params[size_t(tied.front())];
  if (!p.held())
    return;
  unsigned char byte;
  void *at = shards[tied.front()];
  sprt_stream_t stream = sprt_current_stream();
  sprt_memcpy_to_host(&byte, at, 1, stream);
  sprt_stream_synchronize(stream);
  byte ^= 1;
  sprt_memcpy_to_device(at, &byte, 1, stream);
  sprt_stream_synchronize(stream);
}

void sprt::checkTiedCopies(const Model &model, float *const *shards,
                           int64_t step) {
  std::vector<int64_t> tied = tiedParams(model);
  if (tied.empty() || model.pipelineAxis < 0)
    return;
  corruptForTest(model, shards, tied, step);
  sprt_stream_t stream = sprt_current_stream();
  std::vector<uint64_t> mine{uint64_t(sprt_world_rank())};
  std::vector<unsigned char> host;
  for (int64_t i : tied) {
    const ParamInfo &p = model.params[size_t(i)];
    if (!p.held()) {
      mine.push_back(0);
      continue;
    }
    int64_t bytes = p.localElements() * int64_t(dtypeBytes(p.dtype));
    host.resize(size_t(bytes));
    sprt_memcpy_to_host(host.data(), shards[i], bytes, stream);
    sprt_stream_synchronize(stream);
    mine.push_back(hashBytes(host.data(), bytes));
  }
  // The hashes travel through device memory, as every Comm buffer does.
  auto axis = int32_t(model.pipelineAxis);
  int64_t stages = sprt_axis_size(axis);
  int64_t bytes = int64_t(mine.size() * sizeof(uint64_t));
  void *in = allocate(bytes, MemoryCategory::Scratch);
  void *out = allocate(bytes * stages, MemoryCategory::Scratch);
  if (!in || !out)
    fatal("--check-tied: cannot allocate " +
          std::to_string(bytes * (stages + 1)) + " bytes of " +
          sprt_backend_name() + " memory");
  sprt_memcpy_to_device(in, mine.data(), bytes, stream);
  mesh().comm(axis).allGather(in, out, bytes);
  std::vector<uint64_t> gathered(mine.size() * size_t(stages));
  sprt_memcpy_to_host(gathered.data(), out, bytes * stages, stream);
  sprt_stream_synchronize(stream);
  release(in);
  release(out);
  std::string problem = compareTiedCopies(model, tied, gathered, stages, step);
  if (!allAgree(problem.empty()))
    fatal(problem.empty() ? "--check-tied: after step " + std::to_string(step) +
                                ", ranks of another pipeline group found the "
                                "copies of a tied parameter differ"
                          : problem);
}

//===- Params.cpp - this rank's parameter shards --------------------------===//

#include "Params.h"
#include "Comm.h"
#include "Failure.h"
#include "Memory.h"
#include "SafeTensors.h"

#include "sprt/device.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <cmath>
#include <cstring>
#include <map>

using namespace sprt;

static std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

/// The index of the first NaN or Inf of `x`, or -1.
static int64_t firstNonFinite(const float *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i]))
      return i;
  return -1;
}

static std::string nonFiniteAt(const float *x, int64_t i) {
  return std::string(std::isnan(x[i]) ? "NaN" : "Inf") + " at element " +
         std::to_string(i);
}

static int64_t numElements(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

Params::Params(const Model &model) : model(model) {
  for (const ParamInfo &p : model.params) {
    int64_t bytes = p.localElements() * int64_t(sizeof(float));
    ptrs.push_back(
        static_cast<float *>(allocate(bytes, MemoryCategory::Parameters)));
    if (!ptrs.back())
      fatal("cannot allocate " + std::to_string(bytes) + " bytes of " +
            sprt_backend_name() + " memory for parameter '" + p.name + "'");
  }
}

Params::~Params() {
  for (float *p : ptrs)
    release(p);
}

void Params::initialize(uint64_t seed) {
  std::vector<float> host;
  for (size_t i = 0; i < model.params.size(); ++i) {
    const ParamInfo &p = model.params[i];
    host.assign(size_t(p.localElements()), 0.0f);
    if (p.init == "zeros" || p.init == "ones") {
      std::fill(host.begin(), host.end(), p.init == "ones" ? 1.0f : 0.0f);
    } else {
      uint64_t stream = sprt_hash_name(p.name.c_str());
      for (int64_t e = 0; e < int64_t(host.size()); ++e)
        host[e] = float(p.std) *
                  sprt_normal(seed, stream, uint64_t(p.globalIndex(e)));
    }
    sprt_memcpy_to_device(ptrs[i], host.data(),
                          int64_t(host.size() * sizeof(float)),
                          sprt_current_stream());
  }
  sprt_stream_synchronize(sprt_current_stream());
}

bool Params::load(const std::string &path, std::string &error) {
  std::vector<int64_t> indices;
  for (size_t i = 0; i < model.params.size(); ++i)
    indices.push_back(int64_t(i));
  return loadSharded(model, indices, "", ptrs, path, error);
}

/// Elements of tensor k this rank holds, and the offset of the first in its
/// parameter shard.
static std::pair<int64_t, int64_t>
sliceOf(const ParamInfo &p, const std::vector<int64_t> &sliceAxes, size_t k) {
  int64_t axis = k < sliceAxes.size() ? sliceAxes[k] : -1;
  if (axis < 0)
    return {p.localElements(), 0};
  int64_t n = p.localElements() / sprt_axis_size(int32_t(axis));
  return {n, n * sprt_axis_coord(int32_t(axis))};
}

bool Params::loadSharded(const Model &model,
                         const std::vector<int64_t> &indices,
                         const std::string &suffix,
                         const std::vector<float *> &local,
                         const std::string &path, std::string &error,
                         const std::vector<int64_t> &sliceAxes) {
  std::map<std::string, TensorInfo> tensors;
  if (!readCheckpointIndex(path, tensors, error))
    return false;
  std::vector<char> bytes;
  for (size_t k = 0; k < indices.size(); ++k) {
    const ParamInfo &p = model.params[size_t(indices[k])];
    std::string name = p.name + suffix;
    auto it = tensors.find(name);
    if (it == tensors.end()) {
      error = "checkpoint '" + path + "' has no tensor '" + name + "'";
      return false;
    }
    const TensorInfo &t = it->second;
    if (t.dtype != "F32") {
      error = "checkpoint '" + path + "': tensor '" + name + "' is " + t.dtype +
              ", the model needs F32";
      return false;
    }
    if (t.shape != p.shape) {
      error = "checkpoint '" + path + "': tensor '" + name + "' has shape " +
              shapeStr(t.shape) + " but the model needs " + shapeStr(p.shape);
      return false;
    }
    if (t.end - t.begin != uint64_t(numElements(p.shape)) * sizeof(float)) {
      error = "checkpoint '" + path + "': tensor '" + name +
              "' has the wrong number of bytes for its shape";
      return false;
    }
    if (!readTensorData(t, bytes, error))
      return false;
    const float *whole = reinterpret_cast<const float *>(bytes.data());
    int64_t bad = firstNonFinite(whole, numElements(p.shape));
    if (bad >= 0) {
      error = "checkpoint '" + path + "': tensor '" + name + "' holds " +
              nonFiniteAt(whole, bad);
      return false;
    }
    auto [n, first] = sliceOf(p, sliceAxes, k);
    std::vector<float> host(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e)
      host[size_t(e)] = whole[p.globalIndex(first + e)];
    sprt_memcpy_to_device(local[k], host.data(), n * int64_t(sizeof(float)),
                          sprt_current_stream());
    sprt_stream_synchronize(sprt_current_stream());
  }
  return true;
}

bool Params::dump(const std::string &path, std::string &error,
                  const Metadata &metadata, bool finiteOnly) {
  std::vector<int64_t> indices;
  for (size_t i = 0; i < model.params.size(); ++i)
    indices.push_back(int64_t(i));
  std::vector<const float *> local(ptrs.begin(), ptrs.end());
  return dumpSharded(model, indices, "", local, path, error, {}, metadata,
                     finiteOnly);
}

bool Params::dumpSharded(const Model &model,
                         const std::vector<int64_t> &indices,
                         const std::string &suffix,
                         const std::vector<const float *> &local,
                         const std::string &path, std::string &error,
                         const std::vector<int64_t> &sliceAxes,
                         const Metadata &metadata, bool finiteOnly) {
  // Each element is written by exactly one rank (the owner of its shard),
  // so a sum over the world assembles every tensor on rank 0.
  std::vector<std::vector<float>> whole;
  bool root = sprt_world_rank() == 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    const ParamInfo &p = model.params[size_t(indices[k])];
    std::vector<float> full(size_t(numElements(p.shape)), 0.0f);
    auto [n, first] = sliceOf(p, sliceAxes, k);
    int64_t sliceAxis = k < sliceAxes.size() ? sliceAxes[k] : -1;
    if (p.ownsShard(sliceAxis)) {
      std::vector<float> host(static_cast<size_t>(n));
      sprt_memcpy_to_host(host.data(), local[k], n * int64_t(sizeof(float)),
                          sprt_current_stream());
      sprt_stream_synchronize(sprt_current_stream());
      for (int64_t e = 0; e < n; ++e)
        full[size_t(p.globalIndex(first + e))] = host[size_t(e)];
    }
    World::reduceSumToRoot(full.data(), int64_t(full.size()));
    whole.push_back(std::move(full));
  }
  bool ok = true;
  if (root) {
    std::vector<TensorToWrite> out;
    for (size_t k = 0; k < indices.size() && ok; ++k) {
      const ParamInfo &p = model.params[size_t(indices[k])];
      int64_t bad =
          finiteOnly ? firstNonFinite(whole[k].data(), int64_t(whole[k].size()))
                     : -1;
      if (bad >= 0) {
        error = "not writing '" + path + "': '" + p.name + suffix + "' holds " +
                nonFiniteAt(whole[k].data(), bad);
        ok = false;
      }
      out.push_back({p.name + suffix, "F32", p.shape, whole[k].data(),
                     whole[k].size() * sizeof(float)});
    }
    ok = ok && writeSafeTensors(path, out, error, metadata);
  }
  if (allAgree(ok))
    return true;
  if (ok)
    error = "rank 0 could not write '" + path + "'";
  return false;
}

//===- Params.h - this rank's parameter shards ------------------*- C++ -*-===//

#ifndef SPRT_CORE_PARAMS_H
#define SPRT_CORE_PARAMS_H

#include "Model.h"
#include "SafeTensors.h"

#include <string>
#include <vector>

namespace sprt {

class Params {
public:
  /// Device memory for every shard (sprt/device.h).
  explicit Params(const Model &model);
  ~Params();
  Params(const Params &) = delete;
  Params &operator=(const Params &) = delete;

  /// Draws every parameter from the seed: element e of parameter p is
  /// std * normal(seed, hash(p.name), global index of e), so any layout
  /// draws exactly the slice of the unsharded values.
  void initialize(uint64_t seed);
  /// Loads every parameter by its Hugging Face name from a safetensors file
  /// or index, keeping this rank's shard. False with `error` set.
  bool load(const std::string &path, std::string &error);
  /// Writes every parameter, whole, under its name (rank 0 writes);
  /// `finiteOnly` refuses (writing nothing) if one holds NaN or Inf.
  bool dump(const std::string &path, std::string &error,
            const Metadata &metadata = {}, bool finiteOnly = false);

  float **pointers() { return ptrs.data(); }

  /// Writes tensors laid out like parameters `indices` (their shards at
  /// `local`), whole, under the parameters' names (rank 0 writes).
  /// A tensor k with sliceAxes[k] >= 0 holds only this rank's slice (along
  /// the first dimension) of its shard (a distributed optimizer's).
  /// Returns rank 0's result on every rank.
  static bool
  dumpSharded(const Model &model, const std::vector<int64_t> &indices,
              const std::string &suffix,
              const std::vector<const float *> &local, const std::string &path,
              std::string &error, const std::vector<int64_t> &sliceAxes = {},
              const Metadata &metadata = {}, bool finiteOnly = false);
  /// Loads tensors named like parameters `indices` (plus `suffix`) from a
  /// checkpoint, keeping this rank's shard of each. Every value must be
  /// finite.
  static bool loadSharded(const Model &model,
                          const std::vector<int64_t> &indices,
                          const std::string &suffix,
                          const std::vector<float *> &local,
                          const std::string &path, std::string &error,
                          const std::vector<int64_t> &sliceAxes = {});

private:
  const Model &model;
  std::vector<float *> ptrs;
};

} // namespace sprt

#endif // SPRT_CORE_PARAMS_H

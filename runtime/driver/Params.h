//===- Params.h - this rank's parameter shards ------------------*- C++ -*-===//

#ifndef SPRT_DRIVER_PARAMS_H
#define SPRT_DRIVER_PARAMS_H

#include "Model.h"
#include "SafeTensors.h"

#include <string>
#include <vector>

namespace sprt {

/// The element types of the tensors of one dump or load, one per tensor:
/// how each is stored in device memory and how it is written to the file.
/// Empty: all F32.
struct TensorDTypes {
  std::vector<DType> stored, written;
};

/// The indices of every parameter of `model`: 0, 1, ...
std::vector<int64_t> allParams(const Model &model);

/// The tensors of checkpoint `path` that load no parameter of `model`
/// (Hugging Face's non-parameter buffers aside), in name order.
bool unusedTensors(const Model &model, const std::string &path,
                   std::vector<std::string> &extra, std::string &error);
/// 'a', 'b', 'c'.
std::string joinNames(const std::vector<std::string> &names);

/// The types of a dump of parameters `indices` (or of their gradients):
/// `flag`'s ("f32", "bf16", "f16": --dump-dtype) for all; when `flag` is
/// empty, the model's precision when its description gives one, else each
/// parameter's own.
std::vector<DType> dumpDTypes(const Model &model,
                              const std::vector<int64_t> &indices,
                              const std::string &flag);

class Params {
public:
  /// Device memory for the shard of every parameter this rank holds
  /// (ParamInfo::held: with pipeline parallelism, those its stage reads;
  /// the others' pointers are null) (sprt/device.h).
  explicit Params(const Model &model);
  ~Params();
  Params(const Params &) = delete;
  Params &operator=(const Params &) = delete;

  /// Draws every parameter from the seed: element e of parameter p is
  /// std * normal(seed, hash(p.name), global index of e), so any layout
  /// draws exactly the slice of the unsharded values. A master weight gets
  /// the F32 draws, the parameter their rounding.
  void initialize(uint64_t seed);
  /// Loads every parameter by its Hugging Face name from a safetensors file
  /// or index (tensors in F32, BF16, F16 or F64), converted into the
  /// parameter's element type (round to nearest even when narrowing),
  /// keeping this rank's shard; a master weight its slice in F32. False
  /// with `error` set. Strict, like transformers' loader: every parameter
  /// must be in the file and every tensor of the file must be a parameter
  /// (Hugging Face's non-parameter buffers aside: attention masks,
  /// `rotary_emb.inv_freq`). With `partial` (--init-from-partial) a
  /// missing parameter keeps its value (drawn before) and a tensor the
  /// model does not have is skipped; both are listed there.
  struct Skipped {
    std::vector<std::string> missing, extra;
  };
  bool load(const std::string &path, std::string &error,
            Skipped *partial = nullptr);
  /// Writes every parameter's value (value()), whole, under its name (rank 0
  /// writes), in `written` (one type per parameter; empty: each parameter's
  /// own);
  /// `finiteOnly` refuses (writing nothing) if one holds NaN or Inf.
  bool dump(const std::string &path, std::string &error,
            const Metadata &metadata = {}, bool finiteOnly = false,
            const std::vector<DType> &written = {});

  /// Every shard, in its parameter's element type.
  float **pointers() { return ptrs.data(); }
  /// Each parameter's element type.
  std::vector<DType> dtypes() const;
  /// Each parameter's F32 master slice (ParamInfo::master; optimizer
  /// state: this replica's slice of the shard with a distributed
  /// optimizer), null for a parameter without one.
  const std::vector<float *> &masters() const { return masterPtrs; }

  /// Where parameter `index`'s value is: its F32 master slice when it has
  /// one (sliced by `slicing`), else its shard in its element type.
  /// Dumps and checkpoints read the values through it.
  struct Value {
    const float *data;
    Slicing slicing;
    DType stored;
  };
  Value value(int64_t index) const;

  /// Writes tensors laid out like parameters `indices` (their shards at
  /// `local`), whole, under the parameters' names (rank 0 writes).
  /// A tensor k whose slicings[k] has axes holds only this rank's slice
  /// (along the first dimension) of its shard (a distributed optimizer's).
  /// Each element comes from the rank owning its shard (ParamInfo::
  /// ownsShard: with pipeline parallelism, of the parameter's owner stage),
  /// so `local[k]` may be null on the others.
  /// Every value is divided by `unscale` before it is written (the
  /// gradients of a loss-scaled step: LossScale.h). Returns rank 0's result
  /// on every rank.
  static bool
  dumpSharded(const Model &model, const std::vector<int64_t> &indices,
              const std::string &suffix,
              const std::vector<const float *> &local, const std::string &path,
              std::string &error, const std::vector<Slicing> &slicings = {},
              const Metadata &metadata = {}, bool finiteOnly = false,
              const TensorDTypes &types = {}, double unscale = 1.0);
  /// Loads tensors named like parameters `indices` (plus `suffix`) from a
  /// checkpoint, keeping this rank's shard of each, converted into
  /// `stored` (one type per tensor; empty: all F32). Every value must be
  /// finite, in the file and after the conversion. A null `local[k]` (a
  /// parameter of another pipeline stage) is checked but not kept. With
  /// `missing`, a tensor the file lacks is listed there and skipped
  /// instead of failing the load.
  static bool loadSharded(const Model &model,
                          const std::vector<int64_t> &indices,
                          const std::string &suffix,
                          const std::vector<float *> &local,
                          const std::string &path, std::string &error,
                          const std::vector<Slicing> &slicings = {},
                          const std::vector<DType> &stored = {},
                          std::vector<std::string> *missing = nullptr);

private:
  const Model &model;
  std::vector<float *> ptrs, masterPtrs;
};

} // namespace sprt

#endif // SPRT_DRIVER_PARAMS_H

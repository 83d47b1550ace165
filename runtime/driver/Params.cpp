//===- Params.cpp - this rank's parameter shards --------------------------===//

#include "Params.h"
#include "Comm.h"
#include "Failure.h"
#include "Memory.h"
#include "SafeTensors.h"

#include "sprt/device.h"
#include "sprt/init.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

using namespace sprt;

static std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

static std::string nonFiniteAt(DType t, const void *x, int64_t i) {
  return std::string(std::isnan(elementAt(t, x, i)) ? "NaN" : "Inf") +
         " at element " + std::to_string(i);
}

static std::string valueText(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

/// Type k of `types` (F32 when there is none).
static DType typeAt(const std::vector<DType> &types, size_t k) {
  return k < types.size() ? types[k] : DType::F32;
}

static int64_t numElements(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::vector<int64_t> sprt::allParams(const Model &model) {
  std::vector<int64_t> indices;
  for (size_t i = 0; i < model.params.size(); ++i)
    indices.push_back(int64_t(i));
  return indices;
}

std::vector<DType> sprt::dumpDTypes(const Model &model,
                                    const std::vector<int64_t> &indices,
                                    const std::string &flag) {
  DType asked = model.precisionType;
  bool given = (!flag.empty() && dtypeOfFlag(flag, asked)) ||
               (flag.empty() && model.hasPrecision);
  std::vector<DType> types;
  for (int64_t i : indices)
    types.push_back(given ? asked : model.params[size_t(i)].dtype);
  return types;
}

/// How each master weight is sliced, for the parameters `indices`.
static std::vector<Slicing> masterSlicings(const Model &model,
                                           const std::vector<int64_t> &idx) {
  std::vector<Slicing> slicings;
  for (int64_t i : idx)
    slicings.push_back(model.stateSlicing(i));
  return slicings;
}

/// The parameters with a master weight.
static std::vector<int64_t> masterParams(const Model &model) {
  std::vector<int64_t> indices;
  for (size_t i = 0; i < model.params.size(); ++i)
    if (model.params[i].master)
      indices.push_back(int64_t(i));
  return indices;
}

Params::Params(const Model &model) : model(model) {
  for (const ParamInfo &p : model.params) {
    // Another pipeline stage's parameter: not on this rank.
    if (!p.held()) {
      ptrs.push_back(nullptr);
      continue;
    }
    int64_t bytes = p.localElements() * int64_t(dtypeBytes(p.dtype));
    ptrs.push_back(
        static_cast<float *>(allocate(bytes, MemoryCategory::Parameters)));
    if (!ptrs.back())
      fatal("cannot allocate " + std::to_string(bytes) + " bytes of " +
            sprt_backend_name() + " memory for parameter '" + p.name + "'");
  }
  // The master weights are optimizer state (the slice the optimizer
  // updates).
  for (size_t i = 0; i < model.params.size(); ++i) {
    const ParamInfo &p = model.params[i];
    masterPtrs.push_back(nullptr);
    if (!p.master || !p.held())
      continue;
    int64_t bytes = p.localElements() / model.stateSlicing(int64_t(i)).count() *
                    int64_t(sizeof(float));
    masterPtrs.back() =
        static_cast<float *>(allocate(bytes, MemoryCategory::OptimizerState));
    if (!masterPtrs.back())
      fatal("cannot allocate " + std::to_string(bytes) + " bytes of " +
            sprt_backend_name() + " memory for the master weight of '" +
            p.name + "'");
  }
}

Params::~Params() {
  for (float *p : ptrs)
    if (p)
      release(p);
  for (float *p : masterPtrs)
    if (p)
      release(p);
}

Params::Value Params::value(int64_t index) const {
  if (masterPtrs[size_t(index)])
    return {masterPtrs[size_t(index)], model.stateSlicing(index), DType::F32};
  return {ptrs[size_t(index)], Slicing(), model.params[size_t(index)].dtype};
}

std::vector<DType> Params::dtypes() const {
  std::vector<DType> types;
  for (const ParamInfo &p : model.params)
    types.push_back(p.dtype);
  return types;
}

/// The element type code of sprt/kernels.h for a stored type.
static int32_t storedCode(DType t) {
  switch (t) {
  case DType::BF16:
    return SPRT_DTYPE_BF16;
  case DType::F16:
    return SPRT_DTYPE_F16;
  default:
    return SPRT_DTYPE_F32;
  }
}

void Params::initialize(uint64_t seed) {
  for (size_t i = 0; i < model.params.size(); ++i) {
    const ParamInfo &p = model.params[i];
    // Every copy (pipeline stages holding the parameter) draws the same
    // values: the draws are by global index.
    if (!ptrs[i])
      continue;
    // The master slice gets the f32 draws themselves, the parameter their
    // rounding.
    int64_t masterBegin = 0, masterCount = 0;
    if (masterPtrs[i]) {
      Slicing slicing = model.stateSlicing(int64_t(i));
      masterCount = p.localElements() / slicing.count();
      masterBegin = masterCount * slicing.index();
    }
    if (p.init == "zeros" || p.init == "ones") {
      // A master slice of a constant is the same constant.
      sprt_init_constant(p.localElements(), p.init == "ones" ? 1.0f : 0.0f,
                         ptrs[i], storedCode(p.dtype), masterPtrs[i],
                         masterCount);
      continue;
    }
    sprt_shard_map map = p.shardMap();
    sprt_init_normal(&map, seed, sprt_hash_name(p.name.c_str()), float(p.std),
                     ptrs[i], storedCode(p.dtype), masterPtrs[i], masterBegin,
                     masterCount);
  }
  sprt_stream_synchronize(sprt_current_stream());
}

bool Params::load(const std::string &path, std::string &error,
                  Skipped *partial) {
  std::vector<std::string> missing;
  std::vector<std::string> *skip = partial ? &missing : nullptr;
  if (!loadSharded(model, allParams(model), "", ptrs, path, error, {}, dtypes(),
                   skip))
    return false;
  // The master weights from the same tensors, unrounded.
  std::vector<int64_t> indices = masterParams(model);
  std::vector<float *> local;
  for (int64_t i : indices)
    local.push_back(masterPtrs[size_t(i)]);
  std::vector<std::string> mastersMissing;
  if (!indices.empty() && !loadSharded(model, indices, "", local, path, error,
                                       masterSlicings(model, indices), {},
                                       partial ? &mastersMissing : nullptr))
    return false;
  std::vector<std::string> extra;
  if (!unusedTensors(model, path, extra, error))
    return false;
  if (partial) {
    partial->missing = std::move(missing);
    partial->extra = std::move(extra);
    return true;
  }
  if (extra.empty())
    return true;
  error = "checkpoint '" + path + "' holds " + std::to_string(extra.size()) +
          " tensor" + (extra.size() > 1 ? "s" : "") +
          " this model does not have: " + joinNames(extra) +
          " (another model or configuration? --init-from-partial skips "
          "them)";
  return false;
}

/// Elements of tensor k this rank holds, and the offset of the first in its
/// parameter shard.
static std::pair<int64_t, int64_t>
sliceOf(const ParamInfo &p, const std::vector<Slicing> &slicings, size_t k) {
  if (k >= slicings.size())
    return {p.localElements(), 0};
  int64_t n = p.localElements() / slicings[k].count();
  return {n, n * slicings[k].index()};
}

/// The tensor parameter `name` loads from: the one under its name, or under
/// the name the family's base model (GPT2Model, GPTNeoXModel, LlamaModel)
/// saves it as, without the model's `hfBasePrefix` ("transformer.",
/// "gpt_neox.", "model."); null with `error` set when there is none, or
/// both.
static const TensorInfo *
findTensor(const Model &model, const std::map<std::string, TensorInfo> &tensors,
           const std::string &name, const std::string &path, std::string &error,
           bool reportMissing = true) {
  auto full = tensors.find(name);
  std::string base;
  const std::string &prefix = model.hfBasePrefix;
  if (!prefix.empty() && name.rfind(prefix, 0) == 0)
    base = name.substr(prefix.size());
  auto short_ = base.empty() ? tensors.end() : tensors.find(base);
  if (full != tensors.end() && short_ != tensors.end()) {
    error = "checkpoint '" + path + "' has both '" + name + "' and '" + base +
            "' (its base model's name): which one to load is ambiguous";
    return nullptr;
  }
  if (full != tensors.end())
    return &full->second;
  if (short_ != tensors.end())
    return &short_->second;
  if (!reportMissing)
    return nullptr;
  error = "checkpoint '" + path + "' has no tensor '" + name + "'" +
          (base.empty() ? "" : " (nor '" + base + "')");
  return nullptr;
}

/// Hugging Face checkpoints hold buffers that are no parameters (GPT-2's
/// and GPT-NeoX's causal masks, rotary inverse frequencies: the model's
/// `hfBuffers`); transformers ignores them on load, and so does --init-from.
static bool isHfBuffer(const Model &model, const std::string &name) {
  for (const std::string &suffix : model.hfBuffers) {
    size_t n = suffix.size();
    if (name.size() >= n && name.compare(name.size() - n, n, suffix) == 0)
      return true;
  }
  return false;
}

std::string sprt::joinNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &n : names)
    text += (text.empty() ? "'" : ", '") + n + "'";
  return text;
}

bool sprt::unusedTensors(const Model &model, const std::string &path,
                         std::vector<std::string> &extra, std::string &error) {
  std::map<std::string, TensorInfo> tensors;
  if (!readCheckpointIndex(path, tensors, error))
    return false;
  std::set<std::string> used;
  for (int64_t i : allParams(model)) {
    const TensorInfo *t =
        findTensor(model, tensors, model.params[size_t(i)].name, path, error,
                   /*reportMissing=*/false);
    if (t)
      used.insert(t->name);
    if (!error.empty())
      return false;
  }
  for (const auto &[name, t] : tensors)
    if (!used.count(name) && !isHfBuffer(model, name))
      extra.push_back(name);
  return true;
}

bool Params::loadSharded(const Model &model,
                         const std::vector<int64_t> &indices,
                         const std::string &suffix,
                         const std::vector<float *> &local,
                         const std::string &path, std::string &error,
                         const std::vector<Slicing> &slicings,
                         const std::vector<DType> &stored,
                         std::vector<std::string> *missing) {
  std::map<std::string, TensorInfo> tensors;
  if (!readCheckpointIndex(path, tensors, error))
    return false;
  std::vector<char> bytes, converted, host;
  for (size_t k = 0; k < indices.size(); ++k) {
    const ParamInfo &p = model.params[size_t(indices[k])];
    std::string name = p.name + suffix;
    const TensorInfo *found = findTensor(model, tensors, name, path, error,
                                         /*reportMissing=*/!missing);
    if (!found && missing && error.empty()) {
      missing->push_back(name);
      continue;
    }
    if (!found)
      return false;
    const TensorInfo &t = *found;
    DType from, into = typeAt(stored, k);
    if (!dtypeNamed(t.dtype, from)) {
      error = "checkpoint '" + t.file + "': tensor '" + name + "' is " +
              t.dtype + "; parameters load from F32, BF16, F16 or F64 (into " +
              dtypeName(into) + ")";
      return false;
    }
    if (t.shape != p.shape) {
      error = "checkpoint '" + path + "': tensor '" + name + "' has shape " +
              shapeStr(t.shape) + " but the model needs " + shapeStr(p.shape);
      return false;
    }
    int64_t count = numElements(p.shape);
    if (t.end - t.begin != uint64_t(count) * dtypeBytes(from)) {
      error = "checkpoint '" + path + "': tensor '" + name +
              "' has the wrong number of bytes for its shape";
      return false;
    }
    if (!readTensorData(t, bytes, error))
      return false;
    int64_t bad = firstNonFinite(from, bytes.data(), count);
    if (bad >= 0) {
      error = "checkpoint '" + path + "': tensor '" + name + "' holds " +
              nonFiniteAt(from, bytes.data(), bad);
      return false;
    }
    // One rounding, from the file's type straight into the stored one
    // (none when they are the same).
    const char *stored = bytes.data();
    if (from != into) {
      converted.resize(size_t(count) * dtypeBytes(into));
      convertElements(from, bytes.data(), into, converted.data(), count);
      stored = converted.data();
      bad = firstNonFinite(into, converted.data(), count);
    }
    if (bad >= 0) {
      error = "checkpoint '" + path + "': tensor '" + name + "' element " +
              std::to_string(bad) + " (" +
              valueText(elementAt(from, bytes.data(), bad)) + ") overflows " +
              dtypeName(into);
      return false;
    }
    // A parameter of another pipeline stage is checked (every rank refuses
    // the same file) but not kept.
    if (!local[k])
      continue;
    auto [n, first] = sliceOf(p, slicings, k);
    size_t size = dtypeBytes(into);
    host.resize(size_t(n) * size);
    forEachShardRun(p.shardMap(), first, n,
                    [&](int64_t local, int64_t global, int64_t length) {
                      std::memcpy(host.data() + size_t(local - first) * size,
                                  stored + size_t(global) * size,
                                  size_t(length) * size);
                    });
    sprt_memcpy_to_device(local[k], host.data(), int64_t(host.size()),
                          sprt_current_stream());
    sprt_stream_synchronize(sprt_current_stream());
  }
  return true;
}

bool Params::dump(const std::string &path, std::string &error,
                  const Metadata &metadata, bool finiteOnly,
                  const std::vector<DType> &written) {
  std::vector<const float *> local;
  std::vector<Slicing> slicings;
  TensorDTypes types;
  for (size_t i = 0; i < model.params.size(); ++i) {
    Value v = value(int64_t(i));
    local.push_back(v.data);
    slicings.push_back(v.slicing);
    types.stored.push_back(v.stored);
  }
  types.written = written.empty() ? dtypes() : written;
  return dumpSharded(model, allParams(model), "", local, path, error, slicings,
                     metadata, finiteOnly, types);
}

bool Params::dumpSharded(const Model &model,
                         const std::vector<int64_t> &indices,
                         const std::string &suffix,
                         const std::vector<const float *> &local,
                         const std::string &path, std::string &error,
                         const std::vector<Slicing> &slicings,
                         const Metadata &metadata, bool finiteOnly,
                         const TensorDTypes &types, double unscale) {
  // Each element is written by exactly one rank (the owner of its shard),
  // so a sum over the world assembles every tensor on rank 0, which writes
  // it (checksummed in the same pass) before assembling the next: one
  // tensor is held at a time.
  bool root = sprt_world_rank() == 0;
  std::vector<TensorToWrite> layout;
  for (size_t k = 0; k < indices.size(); ++k) {
    const ParamInfo &p = model.params[size_t(indices[k])];
    DType written = typeAt(types.written, k);
    layout.push_back({p.name + suffix, dtypeName(written), p.shape, nullptr,
                      uint64_t(numElements(p.shape)) * dtypeBytes(written)});
  }
  SafeTensorsWriter out;
  bool ok = !root || out.open(path, layout, metadata, error);
  std::vector<float> full;
  std::vector<char> raw, narrowed;
  std::vector<float> host;
  for (size_t k = 0; k < indices.size(); ++k) {
    const ParamInfo &p = model.params[size_t(indices[k])];
    full.assign(size_t(numElements(p.shape)), 0.0f);
    auto [n, first] = sliceOf(p, slicings, k);
    if (p.ownsShard(k < slicings.size() ? slicings[k] : Slicing())) {
      // Widened to f32 (exact) for the assembly.
      DType stored = typeAt(types.stored, k);
      raw.resize(size_t(n) * dtypeBytes(stored));
      host.resize(size_t(n));
      sprt_memcpy_to_host(raw.data(), local[k], int64_t(raw.size()),
                          sprt_current_stream());
      sprt_stream_synchronize(sprt_current_stream());
      convertElements(stored, raw.data(), DType::F32, host.data(), n);
      if (unscale != 1.0)
        for (float &x : host)
          x = float(double(x) / unscale);
      forEachShardRun(p.shardMap(), first, n,
                      [&](int64_t local, int64_t global, int64_t length) {
                        std::memcpy(full.data() + global,
                                    host.data() + (local - first),
                                    size_t(length) * sizeof(float));
                      });
    }
    World::reduceSumToRoot(full.data(), int64_t(full.size()));
    if (!root || !ok)
      continue;
    int64_t count = int64_t(full.size());
    int64_t bad =
        finiteOnly ? firstNonFinite(DType::F32, full.data(), count) : -1;
    if (bad >= 0) {
      error = "not writing '" + path + "': '" + p.name + suffix + "' holds " +
              nonFiniteAt(DType::F32, full.data(), bad);
      ok = false;
      continue;
    }
    DType written = typeAt(types.written, k);
    const void *data = full.data();
    if (written != DType::F32) {
      narrowed.resize(size_t(count) * dtypeBytes(written));
      convertElements(DType::F32, full.data(), written, narrowed.data(), count);
      data = narrowed.data();
    }
    ok = out.append(data, layout[k].bytes, error);
  }
  ok = ok && (!root || out.commit(error));
  if (allAgree(ok))
    return true;
  if (ok)
    error = "rank 0 could not write '" + path + "'";
  return false;
}

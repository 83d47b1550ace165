//===- Model.cpp - the compiled model's description -----------------------===//

#include "Model.h"

#include "sprt/init.h"
#include "sprt/runtime.h"

// The format of the model description this runtime reads.
#define SPRT_MODEL_FORMAT(version)                                             \
  static constexpr int64_t kModelFormat = version;
#include "sprt/model_json.def"

#include <algorithm>
#include <nlohmann/json.hpp>

using namespace sprt;
using nlohmann::json;

int64_t ParamInfo::localElements() const {
  int64_t n = 1;
  for (int64_t d : localShape)
    n *= d;
  return n;
}

sprt_shard_map ParamInfo::shardMap() const {
  sprt_shard_map map{};
  map.rank = int32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    map.local_shape[d] = map.local_block[d] = localShape[d];
    map.global_shape[d] = map.global_block[d] = shape[d];
  }
  for (const Split &s : splits) {
    // Each of the `blocks` blocks of the global dimension is split over the
    // axis; this rank holds its part of every block.
    map.local_block[s.dim] = localShape[s.dim] / s.blocks;
    map.global_block[s.dim] = shape[s.dim] / s.blocks;
    map.offset[s.dim] =
        sprt_axis_coord(int32_t(s.axis)) * map.local_block[s.dim];
  }
  return map;
}

int64_t ParamInfo::globalIndex(int64_t i) const {
  int64_t global = 0;
  forEachShardRun(shardMap(), i, 1,
                  [&](int64_t, int64_t g, int64_t) { global = g; });
  return global;
}

bool ParamInfo::held() const {
  if (pipelineAxis < 0)
    return true;
  int64_t at = sprt_axis_coord(int32_t(pipelineAxis));
  return std::find(stages.begin(), stages.end(), at) != stages.end();
}

int64_t Slicing::count() const {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= sprt_axis_size(int32_t(a));
  return n;
}

int64_t Slicing::index() const {
  int64_t i = 0;
  for (int64_t a : axes)
    i = i * sprt_axis_size(int32_t(a)) + sprt_axis_coord(int32_t(a));
  return i;
}

bool Slicing::contains(int64_t axis) const {
  return std::find(axes.begin(), axes.end(), axis) != axes.end();
}

bool ParamInfo::ownsShard(const Slicing &slicing) const {
  int64_t numAxes = sprt_mesh_num_axes();
  for (int64_t a = 0; a < numAxes; ++a) {
    if (a == pipelineAxis) {
      if (sprt_axis_coord(int32_t(a)) != ownerStage())
        return false;
      continue;
    }
    bool splitHere = false;
    for (const Split &s : splits)
      splitHere |= s.axis == a;
    if (!splitHere && !slicing.contains(a) && sprt_axis_coord(int32_t(a)) != 0)
      return false;
  }
  return true;
}

const char *sprt::optimizerName(Optimizer optimizer) {
  switch (optimizer) {
  case Optimizer::adamw:
    return "adamw";
  case Optimizer::sgd:
    return "sgd";
  case Optimizer::none:
    break;
  }
  return "";
}

int64_t Model::masterStateIndex(int64_t index) const {
  return (optimizer == Optimizer::adamw ? 2 * int64_t(params.size()) : 0) +
         index;
}

bool Model::hasMasters() const {
  for (const ParamInfo &p : params)
    if (p.master)
      return true;
  return false;
}

Slicing Model::stateSlicing(int64_t index) const {
  for (size_t k = 0; k < grads.size(); ++k)
    if (grads[k] == index && k < gradShardAxes.size())
      return gradShardAxes[k];
  return {};
}

std::string Model::precision() const {
  if (hasPrecision)
    return dtypeName(precisionType);
  if (params.empty())
    return dtypeName(DType::F32);
  for (const ParamInfo &p : params)
    if (p.dtype != params[0].dtype)
      return "mixed";
  return dtypeName(params[0].dtype);
}

void Model::selectStage() {
  if (pipelineAxis < 0)
    return;
  stage = sprt_axis_coord(int32_t(pipelineAxis));
  const StageInfo &s = stages.at(size_t(stage));
  arenaBytes = s.arenaBytes;
  workspaceBytes = s.workspaceBytes;
  flopsPerStep = s.flopsPerStep;
  recomputeFlopsPerStep = s.recomputeFlopsPerStep;
  planned = s.planned;
  plannedPeak = s.plannedPeak;
  grads = s.grads;
  gradShardAxes = s.gradShardAxes;
  attention = s.attention;
}

/// The "attention" list of `j` (absent: none) into `out`.
static bool parseAttention(const json &j, std::vector<AttentionShape> &out,
                           std::string &error) {
  out.clear();
  if (!j.contains("attention"))
    return true;
  const json &list = j.at("attention");
  if (!list.is_array()) {
    error = "the program's model description: \"attention\" is not a list";
    return false;
  }
  for (const json &a : list) {
    AttentionShape shape;
    sprt_attention_args &args = shape.args;
    args.S = a.at("rows").get<int64_t>();
    args.B = a.at("batch").get<int64_t>();
    args.heads = a.at("heads").get<int64_t>();
    args.kv_heads = a.at("kv_heads").get<int64_t>();
    args.head_dim = a.at("head_dim").get<int64_t>();
    args.dropout_rate = a.at("dropout").get<double>();
    args.causal = a.at("causal").get<bool>() ? 1 : 0;
    args.document_causal = a.at("document_causal").get<int32_t>();
    args.batch_axis = a.at("batch_axis").get<int32_t>();
    args.head_axis = a.at("head_axis").get<int32_t>();
    args.seq_axis = a.at("seq_axis").get<int32_t>();
    shape.backward = a.at("backward").get<bool>();
    shape.ring = a.value("ring", false);
    out.push_back(shape);
  }
  return true;
}

/// The planned memory of `plan` (a "planned" object) into `planned` and
/// `peak`.
static void parsePlanned(const json &plan,
                         std::vector<std::pair<std::string, int64_t>> &planned,
                         int64_t &peak) {
  planned.clear();
  for (const char *c : {"parameters", "optimizer_state", "tokens", "arena"})
    planned.push_back({c, plan.at(c).get<int64_t>()});
  peak = plan.at("peak_bytes").get<int64_t>();
}

/// The "grad_shard_axes" of `j` (`n` gradients; absent: none sliced), each
/// -1 (not sliced), an axis, or a list of axes outermost first, into
/// `slicings`; false with `error` set when an axis is not one of the mesh's
/// `numAxes` or is listed twice.
static bool parseSlicings(const json &j, size_t n, int64_t numAxes,
                          std::vector<Slicing> &slicings, std::string &error) {
  slicings.assign(n, Slicing());
  if (!j.contains("grad_shard_axes"))
    return true;
  const json &all = j.at("grad_shard_axes");
  if (!all.is_array() || all.size() != n) {
    error = "the program's model description gives grad_shard_axes " +
            all.dump() + " for " + std::to_string(n) + " gradients";
    return false;
  }
  for (size_t k = 0; k < n; ++k) {
    const json &e = all[k];
    std::vector<int64_t> axes;
    if (e.is_array())
      axes = e.get<std::vector<int64_t>>();
    else if (e.get<int64_t>() != -1)
      axes = {e.get<int64_t>()};
    for (size_t i = 0; i < axes.size(); ++i)
      if (axes[i] < 0 || axes[i] >= numAxes ||
          std::find(axes.begin(), axes.begin() + i, axes[i]) !=
              axes.begin() + i) {
        error = "the program's model description slices gradient #" +
                std::to_string(k) + " over the axes " + e.dump() +
                " (the mesh has " + std::to_string(numAxes) +
                " axes; each listed once)";
        return false;
      }
    slicings[k].axes = std::move(axes);
  }
  return true;
}

/// Parses the pipeline's fields of `j` into `m`; false with `error` set.
static bool parsePipeline(const json &j, Model &m, std::string &error) {
  const std::string what = "the program's model description ";
  m.pipelineAxis = j.value("pipeline_axis", int64_t(-1));
  if (m.pipelineAxis < -1 || m.pipelineAxis >= int64_t(m.axisSizes.size())) {
    error = what + "gives pipeline_axis " + std::to_string(m.pipelineAxis) +
            " (the mesh has " + std::to_string(m.axisSizes.size()) + " axes)";
    return false;
  }
  if (m.pipelineAxis < 0)
    return true;
  int64_t numStages = m.axisSizes[size_t(m.pipelineAxis)];
  const json &stages = j.at("stages");
  if (!stages.is_array() || int64_t(stages.size()) != numStages) {
    error = what + "gives " +
            (stages.is_array() ? std::to_string(stages.size()) : "no") +
            " stage records for a pipeline axis of " +
            std::to_string(numStages) + " stages";
    return false;
  }
  for (const json &s : stages) {
    StageInfo info;
    info.arenaBytes = s.at("arena_bytes").get<int64_t>();
    info.workspaceBytes = s.value("workspace_bytes", int64_t(0));
    info.flopsPerStep = s.value("flops_per_step", int64_t(0));
    info.recomputeFlopsPerStep =
        s.value("recompute_flops_per_step", int64_t(0));
    parsePlanned(s.at("planned"), info.planned, info.plannedPeak);
    info.grads = s.at("grads").get<std::vector<int64_t>>();
    if (!parseAttention(s, info.attention, error))
      return false;
    if (!parseSlicings(s, info.grads.size(), int64_t(m.axisSizes.size()),
                       info.gradShardAxes, error))
      return false;
    for (int64_t g : info.grads)
      if (g < 0 || g >= int64_t(m.params.size())) {
        error = what + "gives stage " + std::to_string(m.stages.size()) +
                " the gradient of parameter " + std::to_string(g) +
                " (it has " + std::to_string(m.params.size()) + ")";
        return false;
      }
    m.stages.push_back(std::move(info));
  }
  const json &params = j.at("params");
  for (size_t i = 0; i < m.params.size(); ++i) {
    ParamInfo &p = m.params[i];
    p.pipelineAxis = m.pipelineAxis;
    p.stages = params[i].value("stages", std::vector<int64_t>());
    bool ok = !p.stages.empty();
    for (int64_t s : p.stages)
      ok &= s >= 0 && s < numStages;
    if (!ok) {
      error = what + "gives parameter '" + p.name +
              "' no stages within the pipeline's " + std::to_string(numStages) +
              " (its \"stages\" lists the stages reading it)";
      return false;
    }
  }
  return true;
}

int64_t Model::numRanks() const {
  int64_t n = 1;
  for (int64_t s : axisSizes)
    n *= s;
  return n;
}

bool Model::parse(const char *text, std::string &error) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    error = "the program's model description is not valid JSON";
    return false;
  }
  try {
    // A program compiled by another version of sp-compile describes itself
    // in another format (an unversioned one is format 1).
    if (int64_t format = j.value("format_version", int64_t(1));
        format != kModelFormat) {
      error = "the program's model description is format " +
              std::to_string(format) + ", this runtime reads format " +
              std::to_string(kModelFormat) +
              " (sprt/model_json.def): compile the program with the "
              "sp-compile of this runtime";
      return false;
    }
    modelType = j.value("model_type", "");
    if (j.contains("hf_config") && j["hf_config"].is_object())
      hfConfig = j["hf_config"].dump();
    hfBasePrefix = j.value("hf_base_prefix", "");
    hfBuffers = j.value("hf_buffers", std::vector<std::string>());
    axes = j.at("mesh").at("axes").get<std::vector<std::string>>();
    axisSizes = j.at("mesh").at("sizes").get<std::vector<int64_t>>();
    seq = j.at("seq").get<int64_t>();
    batch = j.at("batch").get<int64_t>();
    vocab = j.at("vocab").get<int64_t>();
    if (j.contains("micro_batches")) {
      const json &m = j["micro_batches"];
      if (!m.is_number_integer() || m.get<int64_t>() < 1) {
        error = "the program's model description gives micro_batches " +
                m.dump() + " (an integer of at least 1)";
        return false;
      }
      microBatches = m.get<int64_t>();
    }
    arenaBytes = j.at("arena_bytes").get<int64_t>();
    flopsPerStep = j.value("flops_per_step", int64_t(0));
    recomputeFlopsPerStep = j.value("recompute_flops_per_step", int64_t(0));
    workspaceBytes = j.value("workspace_bytes", int64_t(0));
    hasEval = j.at("eval_step").get<bool>();
    // The evaluation step runs in the train step's arena.
    if (int64_t evalArena =
            hasEval ? j.at("eval_arena_bytes").get<int64_t>() : 0;
        evalArena > arenaBytes) {
      error = "the program's evaluation step needs an arena of " +
              std::to_string(evalArena) + " bytes, larger than the step's (" +
              std::to_string(arenaBytes) + ")";
      return false;
    }
    batchAxis = j.at("batch_axis").get<int64_t>();
    seqAxis = j.value("seq_axis", int64_t(-1));
    if (seqAxis < -1 || seqAxis >= int64_t(axisSizes.size()) ||
        (seqAxis >= 0 && seq % (2 * axisSizes[size_t(seqAxis)]) != 0)) {
      error = "the program's model description gives seq_axis " +
              std::to_string(seqAxis) +
              (seqAxis >= 0 && seqAxis < int64_t(axisSizes.size())
                   ? ": the sequence of " + std::to_string(seq) +
                         " tokens does not split into 2 x " +
                         std::to_string(axisSizes[size_t(seqAxis)]) +
                         " zigzag chunks"
                   : " (the mesh has " + std::to_string(axisSizes.size()) +
                         " axes)");
      return false;
    }
    numScalars = j.value("scalars", int64_t(1));
    grads = j.value("grads", std::vector<int64_t>());
    if (!parseSlicings(j, grads.size(), int64_t(axisSizes.size()),
                       gradShardAxes, error))
      return false;
    if (!parseAttention(j, attention, error))
      return false;
    std::string name = j.value("optimizer", std::string());
    optimizer = name == "adamw" ? Optimizer::adamw
                : name == "sgd" ? Optimizer::sgd
                                : Optimizer::none;
    if (!name.empty() && optimizer == Optimizer::none) {
      error = "the program's model description names the optimizer '" + name +
              "', which this runtime does not know (adamw, sgd): compile "
              "the program with the sp-compile of this runtime";
      return false;
    }
    if (j.contains("precision")) {
      const json &p = j["precision"];
      if (!p.is_string() || !dtypeOfFlag(p.get<std::string>(), precisionType)) {
        error = "the program's model description gives the precision " +
                p.dump() + " (the runtime knows \"f32\", \"bf16\", \"f16\")";
        return false;
      }
      hasPrecision = true;
    }
    for (const json &h : j.value("hyperparameters", json::array()))
      hyperparameters.push_back(
          {h.at("name").get<std::string>(), h.at("default").get<double>()});
    parsePlanned(j.at("planned"), planned, plannedPeak);
    for (const json &p : j.at("params")) {
      ParamInfo info;
      info.name = p.at("name").get<std::string>();
      info.shape = p.at("shape").get<std::vector<int64_t>>();
      info.localShape = p.at("local_shape").get<std::vector<int64_t>>();
      if (info.shape.size() > SPRT_MAX_SHARD_DIMS ||
          info.localShape.size() != info.shape.size()) {
        error = "the program's model description gives parameter '" +
                info.name + "' " + std::to_string(info.shape.size()) +
                " dimensions and a shard of " +
                std::to_string(info.localShape.size()) +
                " (the runtime takes equal ranks of at most " +
                std::to_string(SPRT_MAX_SHARD_DIMS) + ")";
        return false;
      }
      info.init = p.at("init").get<std::string>();
      info.std = p.value("std", 0.0);
      std::string dtype = p.value("dtype", std::string("F32"));
      if (!dtypeNamed(dtype, info.dtype) || info.dtype == DType::F64) {
        error = "the program's model description gives parameter '" +
                info.name + "' the element type '" + dtype +
                "' (the runtime stores F32, BF16 or F16)";
        return false;
      }
      info.master = p.value("master", false);
      if (info.master && info.dtype == DType::F32) {
        error = "the program's model description keeps an F32 master weight "
                "of parameter '" +
                info.name +
                "', which is F32 itself (a master weight is kept "
                "for BF16 or F16 parameters)";
        return false;
      }
      for (const json &s : p.at("splits"))
        info.splits.push_back({s.at("dim").get<int64_t>(),
                               s.at("axis").get<int64_t>(),
                               s.at("blocks").get<int64_t>()});
      params.push_back(std::move(info));
    }
    allGrads = grads;
    allGradShardAxes = gradShardAxes;
    if (!parsePipeline(j, *this, error))
      return false;
  } catch (const std::exception &e) {
    error = std::string("the program's model description is incomplete: ") +
            e.what();
    return false;
  }
  return true;
}

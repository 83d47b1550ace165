//===- Model.h - what the compiler says about the model ---------*- C++ -*-===//
//
// A compiled seqpar program exports `seqpar_model_json`, a JSON description
// of its mesh, inputs, parameters and arena, and `seqpar_step`, one step.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_MODEL_H
#define SPRT_DRIVER_MODEL_H

#include "DType.h"

#include "sprt/abi.h"
#include "sprt/init.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// The program's symbols, declared by sprt/abi.h from sprt/abi.def:
// `seqpar_model_json`, and `seqpar_step(arena, params, input_ids, labels,
// scalars, grads, state, hyperparameters)`, one step: the forward (and, for a
// train step, the backward and the optimizer update). It writes the loss (and
// the gradient norm) to `scalars` and the addresses of the parameter
// gradients to `grads`; `state` holds the optimizer's moment buffers, two per
// parameter for AdamW, and `hyperparameters` the step's value of each of
// Model::hyperparameters. `seqpar_eval` (weak: a forward-only program has
// none), a training program's evaluation step (tfm-eval-step; the model's
// "eval_arena_bytes" says it is there): the forward of one micro-batch
// without dropout, in the step's arena, writing the loss to `scalars[0]` and
// nothing else, with seqpar_step's arguments.

namespace sprt {

/// One dimension of a tensor split over a mesh axis.
struct Split {
  int64_t dim = 0, axis = 0, blocks = 1;
};

/// How a distributed optimizer slices a gradient, and the optimizer state
/// of its parameter, along the first dimension of the parameter's shard:
/// over `axes`, nested outermost first (ZeRO-1 over the data and context
/// axes: the data axis's block is sliced again over the context axis); not
/// at all when `axes` is empty.
struct Slicing {
  std::vector<int64_t> axes;
  /// The number of slices: the axes' ranks together (1 without axes).
  int64_t count() const;
  /// This rank's slice, in [0, count()).
  int64_t index() const;
  bool contains(int64_t axis) const;
  bool sliced() const { return !axes.empty(); }
};

struct ParamInfo {
  std::string name, init;
  double std = 0.0;
  std::vector<int64_t> shape, localShape;
  std::vector<Split> splits;
  /// The element type the compiler gave the parameter (its "dtype"; F32
  /// when the JSON has none): how its shard is stored in device memory.
  DType dtype = DType::F32;
  /// Whether the optimizer keeps the parameter's F32 master weight (its
  /// "master"): the shard, in `dtype` (BF16 / F16), holds the master's
  /// rounding, the master (this replica's slice of the shard with a
  /// distributed optimizer) is optimizer state.
  bool master = false;

  /// The pipeline stages whose step function reads the parameter (the
  /// model's "stages"; empty without a pipeline axis): the ranks of those
  /// stages hold a copy, the first stage's copy is the one dumps and
  /// checkpoints read (its owner).
  std::vector<int64_t> stages;
  /// The mesh's pipeline axis, or -1 (Model::pipelineAxis).
  int64_t pipelineAxis = -1;

  /// Whether this rank holds the parameter: its pipeline coordinate is one
  /// of `stages` (always without a pipeline axis).
  bool held() const;
  /// The stage whose copy dumps and checkpoints read (0 without stages).
  int64_t ownerStage() const { return stages.empty() ? 0 : stages.front(); }

  int64_t localElements() const;
  /// Where this rank's shard sits in the whole tensor.
  sprt_shard_map shardMap() const;
  /// The index in the global (row-major) tensor of local element `i` on
  /// this rank.
  int64_t globalIndex(int64_t i) const;
  /// Whether this rank holds the copy of its shard written to dumps: the
  /// one with coordinate 0 on every axis the parameter is replicated over
  /// (except the axes of `slicing`, which slice the shard further) and,
  /// with a pipeline axis, its owner stage's coordinate on it.
  bool ownsShard(const Slicing &slicing = {}) const;
};

/// An attention of the step or of its evaluation step (the model JSON's
/// "attention"): its arguments (rotary, theta and the dropout stream left 0:
/// a plan does not depend on them), whether the step computes its gradient,
/// and whether it is a ring's, which the driver readies before step 1
/// (sprt_op_attention_prepare, sprt_op_ring_attention_prepare).
struct AttentionShape {
  sprt_attention_args args{};
  bool backward = false;
  bool ring = false; // dist.ring_attention's: readied block by block
};

/// What the step function of one pipeline stage needs of the runtime (the
/// model's "stages"; Model::selectStage).
struct StageInfo {
  int64_t arenaBytes = 0, workspaceBytes = 0, flopsPerStep = 0,
          recomputeFlopsPerStep = 0;
  std::vector<std::pair<std::string, int64_t>> planned;
  int64_t plannedPeak = 0;
  std::vector<int64_t> grads;
  std::vector<Slicing> gradShardAxes;
  std::vector<AttentionShape> attention;
};

/// The optimizer a training program's step applies (the model JSON's
/// "optimizer", sp-compile's --optimizer); none for a forward-only
/// program.
enum class Optimizer { none, adamw, sgd };

/// Its name in the model JSON and in checkpoints ("" for none).
const char *optimizerName(Optimizer optimizer);

struct Model {
  std::string modelType;
  /// The Hugging Face config.json sp-import read (its "hf_config", as
  /// JSON text), or empty when the program has none.
  std::string hfConfig;
  /// How the family's Hugging Face checkpoints name tensors
  /// ("hf_base_prefix", "hf_buffers"; empty for a model sp-import did not
  /// build): the prefix of the parameter names that its base model's
  /// checkpoints drop ("transformer."), and the name suffixes of the
  /// tensors that are no parameters (".attn.bias"), which --init-from
  /// ignores.
  std::string hfBasePrefix;
  std::vector<std::string> hfBuffers;
  std::vector<std::string> axes;
  std::vector<int64_t> axisSizes;
  /// `batch` is the global batch of one micro-batch (the IR's batch).
  int64_t seq = 0, batch = 0, vocab = 0, arenaBytes = 0;
  /// Micro-batches per step (gradient accumulation; "micro_batches", 1 when
  /// absent): a step's global batch is batch x microBatches sequences.
  int64_t microBatches = 1;
  /// The largest workspace the plan gives one op (inside the arena).
  int64_t workspaceBytes = 0;
  /// Whether the program has an evaluation step (seqpar_eval; the JSON's
  /// "eval_arena_bytes", within arenaBytes, which covers both functions).
  bool hasEval = false;
  /// The FLOPs one rank's step performs (GEMMs and attention, as the
  /// compiler counts them: Flops.h), and those of them that recompute
  /// repeats (0 without activation recompute).
  int64_t flopsPerStep = 0, recomputeFlopsPerStep = 0;
  /// The mesh axis splitting the batch of the inputs, or -1.
  int64_t batchAxis = -1;
  /// The mesh axis splitting the sequence of the inputs in zigzag (context
  /// parallelism: SeqSplit.h), or -1.
  int64_t seqAxis = -1;
  std::vector<ParamInfo> params;
  /// Scalars a step returns (1: the loss; 2: loss and gradient norm), the
  /// parameter index of each gradient it returns, and its optimizer.
  int64_t numScalars = 1;
  std::vector<int64_t> grads;
  /// For each returned gradient, how a distributed optimizer slices it
  /// (its first dimension; the JSON's "grad_shard_axes": -1, an axis, or a
  /// list of axes outermost first).
  std::vector<Slicing> gradShardAxes;
  /// The step's attentions, each once (a program from before the JSON
  /// listed them has none: its plans are built on first use).
  std::vector<AttentionShape> attention;
  Optimizer optimizer = Optimizer::none;
  /// The run-time hyperparameters the step reads (tfm.hyperparameter), in
  /// the order of its table, with their compile-time defaults.
  std::vector<std::pair<std::string, double>> hyperparameters;
  /// The compiler's plan of the device memory the runtime allocates outside
  /// its pools and the backend's scratch: bytes by category name
  /// ("parameters", "optimizer_state", "tokens", "arena"), and their sum,
  /// the planned peak (all are live together).
  std::vector<std::pair<std::string, int64_t>> planned;
  int64_t plannedPeak = 0;

  /// The model's compute precision as the JSON's top-level "precision"
  /// gives it ("f32", "bf16", "f16": the parameters may be F32 master
  /// weights of a bf16 model), when it does.
  bool hasPrecision = false;
  DType precisionType = DType::F32;

  /// The model's precision: `precisionType` when the JSON gives one, else
  /// (programs before it did) the parameters' common element type ("F32",
  /// "BF16", "F16"), or "mixed" when they differ.
  std::string precision() const;

  /// The entry of the step's state table holding parameter `index`'s F32
  /// master slice (after AdamW's two moments per parameter).
  int64_t masterStateIndex(int64_t index) const;
  /// Whether any parameter has a master weight.
  bool hasMasters() const;

  /// How parameter `index`'s optimizer state is sliced.
  Slicing stateSlicing(int64_t index) const;

  bool training() const { return optimizer != Optimizer::none; }

  /// Pipeline parallelism: the mesh's pipeline axis ("pipeline_axis"), or
  /// -1, and each stage's record ("stages", one per rank of the axis).
  int64_t pipelineAxis = -1;
  std::vector<StageInfo> stages;
  /// The stage selectStage() chose (0 without a pipeline).
  int64_t stage = 0;
  /// Every parameter gradient the program returns on some stage, once, and
  /// the axis slicing each (the top-level "grads" / "grad_shard_axes"):
  /// what --dump-grads writes, each from its owner stage. Without a
  /// pipeline, `grads` and `gradShardAxes`.
  std::vector<int64_t> allGrads;
  std::vector<Slicing> allGradShardAxes;
  /// Makes the figures of this rank's stage (its pipeline coordinate; the
  /// mesh is set up) those of the model: arena, workspace, FLOPs, planned
  /// memory and the gradients the step returns. Nothing without a pipeline.
  void selectStage();
  int64_t numStages() const {
    return stages.empty() ? 1 : int64_t(stages.size());
  }

  int64_t numRanks() const;
  /// Parses seqpar_model_json; false with `error` set.
  bool parse(const char *json, std::string &error);
};

} // namespace sprt

#endif // SPRT_DRIVER_MODEL_H

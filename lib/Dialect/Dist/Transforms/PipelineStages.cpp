//===- PipelineStages.cpp - sp-pipeline's stage assignment ----------------===//
//
// Places the ops of a forward on the pipeline stages. Each op that runs on
// one stage gets a key: the layer it belongs to (0 .. L-1), -1 before the
// layers (the embeddings) or L after them (the final norm, the head, the
// loss): the largest of its operands' keys and of the keys of the
// parameters it reads (a parameter's layer number, or -1 / L for one
// without a number, read before / after the first op reading a layer's
// parameter). The layers are then split contiguously over the stages, -1
// on the first and L on the last; as every key maps to its stage
// monotonically, each op lands on the latest stage among its operands'
// and its parameters'.
//
//===----------------------------------------------------------------------===//

#include "PipelineStages.h"

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

std::optional<int64_t> dist::parameterLayer(StringRef name) {
  SmallVector<StringRef> parts;
  name.split(parts, '.');
  for (StringRef part : parts) {
    int64_t layer;
    if (!part.empty() && llvm::all_of(part, llvm::isDigit) &&
        !part.getAsInteger(10, layer))
      return layer;
  }
  return std::nullopt;
}

/// The parameter `v` reads (isParameterRead), else null.
static StringAttr parameterOf(Value v) {
  if (auto convert = v.getDefiningOp<ConvertOp>())
    v = convert.getInput();
  auto get = v.getDefiningOp<GetParamOp>();
  return get ? get.getNameAttr().getAttr() : StringAttr();
}

/// Whether every result of `op` is a parameter read.
static bool readsParameter(Operation *op) {
  return op->getNumResults() > 0 && llvm::all_of(op->getResults(), [](Value r) {
           return isParameterRead(r);
         });
}

/// The bytes of a value of type `t` (0 for anything but a ranked tensor).
static int64_t bytesOf(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements() *
         int64_t((tensor.getElementTypeBitWidth() + 7) / 8);
}

/// The contiguous split of the layer costs `layerCost` over `stages` stages
/// (each >= 1 layer) minimizing the largest stage cost, `pre` added to the
/// first stage and `post` to the last.
static SmallVector<int64_t> balance(ArrayRef<int64_t> layerCost, int64_t pre,
                                    int64_t post, int64_t stages) {
  int64_t n = layerCost.size();
  SmallVector<int64_t> prefix{0};
  for (int64_t c : layerCost)
    prefix.push_back(prefix.back() + c);
  auto cost = [&](int64_t s, int64_t from, int64_t to) {
    return prefix[to] - prefix[from] + (s == 0 ? pre : 0) +
           (s == stages - 1 ? post : 0);
  };
  constexpr int64_t inf = std::numeric_limits<int64_t>::max();
  // best[s][i]: the least largest cost of the first s stages holding the
  // first i layers; from[s][i]: where the s-th stage starts.
  SmallVector<SmallVector<int64_t>> best(stages + 1,
                                         SmallVector<int64_t>(n + 1, inf));
  SmallVector<SmallVector<int64_t>> from(stages + 1,
                                         SmallVector<int64_t>(n + 1, 0));
  best[0][0] = 0;
  for (int64_t s = 0; s < stages; ++s)
    for (int64_t i = s + 1; i <= n; ++i)
      for (int64_t j = s; j < i; ++j) {
        if (best[s][j] == inf)
          continue;
        int64_t c = std::max(best[s][j], cost(s, j, i));
        if (c < best[s + 1][i]) {
          best[s + 1][i] = c;
          from[s + 1][i] = j;
        }
      }
  SmallVector<int64_t> layers(stages);
  for (int64_t s = stages, i = n; s > 0; --s) {
    layers[s - 1] = i - from[s][i];
    i = from[s][i];
  }
  return layers;
}

FailureOr<dist::StageAssignment> dist::assignStages(func::FuncOp forward,
                                                    int64_t stages,
                                                    ArrayRef<int64_t> layers) {
  Block &body = forward.getBody().front();
  // Shared ops (no key) and parameter reads are cloned where they are read.
  DenseSet<Operation *> cloned;
  for (Operation &op : body.without_terminator()) {
    bool shared =
        op.getNumRegions() == 0 && llvm::all_of(op.getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return !def || (cloned.contains(def) && !readsParameter(def));
        });
    if (shared || readsParameter(&op))
      cloned.insert(&op);
  }

  // The layers: the distinct layer numbers of the parameters read, in order.
  std::map<int64_t, int64_t> layerIndex;
  for (auto get : body.getOps<GetParamOp>())
    if (std::optional<int64_t> l = parameterLayer(get.getName()))
      layerIndex.insert({*l, 0});
  int64_t numLayers = layerIndex.size();
  int64_t next = 0;
  for (auto &entry : layerIndex)
    entry.second = next++;
  auto paramKey = [&](StringAttr name) -> std::optional<int64_t> {
    if (std::optional<int64_t> l = parameterLayer(name.getValue()))
      return layerIndex[*l];
    return std::nullopt;
  };

  if (numLayers < stages)
    return forward.emitOpError()
           << "sp-pipeline: " << stages
           << " pipeline stages need at least as many layers, but the model "
              "has "
           << numLayers
           << " (a parameter's layer is the first number in its name)";
  if (!layers.empty()) {
    int64_t sum = 0;
    bool valid = int64_t(layers.size()) == stages;
    for (int64_t l : layers) {
      valid &= l >= 1;
      sum += l;
    }
    if (!valid || sum != numLayers) {
      std::string list;
      llvm::raw_string_ostream os(list);
      llvm::interleave(layers, os, ",");
      return forward.emitOpError()
             << "sp-pipeline: layers = " << list << " must give each of the "
             << stages << " stages at least one layer, " << numLayers
             << " in all (the model's layers)";
    }
  }

  // Keys, and the cost of each key (index key + 1).
  DenseMap<Operation *, int64_t> keyOf;
  SmallVector<int64_t> cost(numLayers + 2, 0);
  DenseSet<StringAttr> counted;
  bool afterLayers = false;
  for (Operation &op : body.without_terminator()) {
    if (cloned.contains(&op))
      continue;
    int64_t key = -1;
    SmallVector<std::pair<StringAttr, Value>> params;
    for (Value v : op.getOperands()) {
      if (StringAttr param = parameterOf(v)) {
        params.push_back({param, v});
        if (std::optional<int64_t> l = paramKey(param)) {
          key = std::max(key, *l);
          afterLayers = true;
        }
      } else if (Operation *def = v.getDefiningOp()) {
        if (!cloned.contains(def))
          key = std::max(key, keyOf.lookup(def));
      }
    }
    for (auto [param, v] : params)
      if (!paramKey(param))
        key = std::max(key, afterLayers ? numLayers : int64_t(-1));
    keyOf[&op] = key;
    for (auto [param, v] : params)
      if (counted.insert(param).second) {
        auto t = cast<RankedTensorType>(v.getType());
        cost[(paramKey(param) ? *paramKey(param) : key) + 1] +=
            t.getNumElements();
      }
    for (Type t : op.getResultTypes())
      cost[key + 1] += bytesOf(t);
  }

  StageAssignment result;
  result.numLayers = numLayers;
  result.layersPerStage = layers.empty()
                              ? balance(ArrayRef(cost).slice(1, numLayers),
                                        cost.front(), cost.back(), stages)
                              : SmallVector<int64_t>(layers);
  SmallVector<int64_t> stageOfKey{0};
  for (auto [s, n] : llvm::enumerate(result.layersPerStage))
    stageOfKey.append(n, s);
  stageOfKey.push_back(stages - 1);
  for (auto [op, key] : keyOf)
    result.stageOf[op] = stageOfKey[key + 1];
  return result;
}

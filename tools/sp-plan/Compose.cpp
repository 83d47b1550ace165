//===- Compose.cpp - a deep model's facts from two shallow ones ----------===//

#include "Compose.h"

using namespace llvm;
using namespace seqpar::plan;

/// a, b: a value at k and k + 1 layers per stage; the value `steps` layers
/// past b.
static int64_t extrapolate(int64_t a, int64_t b, int64_t steps) {
  return b + (b - a) * steps;
}

static json::Value compose(const json::Value &a, const json::Value &b,
                           int64_t steps) {
  if (std::optional<int64_t> y = b.getAsInteger())
    if (std::optional<int64_t> x = a.getAsInteger())
      return extrapolate(*x, *y, steps);
  if (const json::Object *y = b.getAsObject())
    if (const json::Object *x = a.getAsObject()) {
      json::Object out;
      for (const auto &[key, value] : *y) {
        const json::Value *other = x->get(key);
        out[key] = other ? compose(*other, value, steps) : value;
      }
      return out;
    }
  if (const json::Array *y = b.getAsArray())
    if (const json::Array *x = a.getAsArray(); x && x->size() == y->size()) {
      json::Array out;
      for (size_t i = 0; i < y->size(); ++i)
        out.push_back(compose((*x)[i], (*y)[i], steps));
      return out;
    }
  return b;
}

static StageFacts compose(const StageFacts &a, const StageFacts &b,
                          int64_t steps) {
  auto f = [&](int64_t x, int64_t y) { return extrapolate(x, y, steps); };
  StageFacts out;
  out.gemmFlops = f(a.gemmFlops, b.gemmFlops);
  out.attentionFlops = f(a.attentionFlops, b.attentionFlops);
  out.ringAttentionFlops = f(a.ringAttentionFlops, b.ringAttentionFlops);
  out.attentionScoreBytes = f(a.attentionScoreBytes, b.attentionScoreBytes);
  for (const auto &[output, flops] : b.gemmFlopsByOutput) {
    auto it = a.gemmFlopsByOutput.find(output);
    out.gemmFlopsByOutput[output] =
        f(it == a.gemmFlopsByOutput.end() ? 0 : it->second, flops);
  }
  for (const auto &entry : b.memoryBoundBytes)
    out.memoryBoundBytes[entry.getKey()] =
        f(a.memoryBoundBytes.lookup(entry.getKey()), entry.getValue());
  out.modelFlops = f(a.modelFlops, b.modelFlops);
  out.recomputeFlops = f(a.recomputeFlops, b.recomputeFlops);
  out.backwardFlops = f(a.backwardFlops, b.backwardFlops);
  for (const auto &entry : b.traffic) {
    AxisTraffic x = a.traffic.lookup(entry.getKey());
    const AxisTraffic &y = entry.getValue();
    AxisTraffic &t = out.traffic[entry.getKey()];
    t.exposedBytes = f(x.exposedBytes, y.exposedBytes);
    t.exposedCount = f(x.exposedCount, y.exposedCount);
    t.fusedBytes = f(x.fusedBytes, y.fusedBytes);
    t.fusedCount = f(x.fusedCount, y.fusedCount);
    t.asyncBytes = f(x.asyncBytes, y.asyncBytes);
    t.asyncCount = f(x.asyncCount, y.asyncCount);
  }
  return out;
}

CompileResult seqpar::plan::compose(const CompileResult &shallow,
                                    const CompileResult &deeper,
                                    int64_t steps) {
  CompileResult out;
  out.mesh = deeper.mesh;
  out.memory =
      std::move(*::compose(json::Value(json::Object(shallow.memory)),
                           json::Value(json::Object(deeper.memory)), steps)
                     .getAsObject());
  for (size_t i = 0; i < deeper.stages.size(); ++i)
    out.stages.push_back(::compose(shallow.stages[i], deeper.stages[i], steps));
  // The top level is the first stage with the largest total.
  if (json::Array *stages = out.memory.getArray("stages")) {
    int64_t worst = -1;
    for (json::Value &s : *stages) {
      json::Object *stage = s.getAsObject();
      int64_t total =
          *stage->getObject("per_rank_peak_bytes")->getInteger("total");
      if (total <= worst)
        continue;
      worst = total;
      for (StringRef key : {"flops", "per_rank_peak_bytes"})
        out.memory[key] = *stage->get(key);
    }
  }
  return out;
}

static const char *const layerKeys[] = {"n_layer", "num_hidden_layers"};

Expected<int64_t> seqpar::plan::layerCount(StringRef config) {
  Expected<json::Value> value = json::parse(config);
  if (!value)
    return value.takeError();
  if (const json::Object *o = value->getAsObject())
    for (const char *key : layerKeys)
      if (std::optional<int64_t> n = o->getInteger(key))
        return *n;
  return createStringError(inconvertibleErrorCode(),
                           "the config has no integer n_layer or "
                           "num_hidden_layers");
}

Expected<std::string> seqpar::plan::withLayerCount(StringRef config,
                                                   int64_t layers) {
  Expected<json::Value> value = json::parse(config);
  if (!value)
    return value.takeError();
  json::Object *o = value->getAsObject();
  for (const char *key : layerKeys)
    if (o && o->getInteger(key)) {
      (*o)[key] = layers;
      std::string text;
      raw_string_ostream(text) << json::Value(std::move(*o));
      return text;
    }
  return createStringError(inconvertibleErrorCode(),
                           "the config has no integer n_layer or "
                           "num_hidden_layers");
}

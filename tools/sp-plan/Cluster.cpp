//===- Cluster.cpp - reading a cluster description -----------------------===//

#include "Cluster.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace seqpar::plan;

static Error fieldError(StringRef source, const Twine &message) {
  return createStringError(inconvertibleErrorCode(), source + ": " + message);
}

/// A positive finite number at `key` of `o`.
static Expected<double> positive(const json::Object &o, StringRef key,
                                 StringRef where, StringRef source) {
  std::optional<double> v = o.getNumber(key);
  if (!v || !std::isfinite(*v) || *v <= 0)
    return fieldError(source,
                      "'" + where + key + "' must be a positive number");
  return *v;
}

static Expected<int64_t> positiveInt(const json::Object &o, StringRef key,
                                     StringRef source) {
  std::optional<int64_t> v = o.getInteger(key);
  if (!v || *v < 1)
    return fieldError(source, "'" + key + "' must be a positive integer");
  return *v;
}

static Expected<Link> parseLink(const json::Object &o, StringRef key,
                                StringRef source) {
  const json::Object *l = o.getObject(key);
  if (!l)
    return fieldError(source, "'" + key +
                                  "' must be an object with "
                                  "bytes_per_second and latency_seconds");
  Link link;
  std::string where = (key + ".").str();
  Expected<double> bw = positive(*l, "bytes_per_second", where, source);
  if (!bw)
    return bw.takeError();
  std::optional<double> lat = l->getNumber("latency_seconds");
  if (!lat || !std::isfinite(*lat) || *lat < 0)
    return fieldError(source,
                      "'" + where + "latency_seconds' must be a number >= 0");
  link.bytesPerSecond = *bw;
  link.latencySeconds = *lat;
  return link;
}

Expected<Cluster> seqpar::plan::parseCluster(StringRef text, StringRef source) {
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return fieldError(source, "not JSON: " + toString(value.takeError()));
  const json::Object *o = value->getAsObject();
  if (!o)
    return fieldError(source, "must be a JSON object");
  Cluster c;
  if (std::optional<StringRef> name = o->getString("name"))
    c.name = name->str();
  for (auto [key, field] : {std::pair("nodes", &c.nodes),
                            std::pair("gpus_per_node", &c.gpusPerNode),
                            std::pair("memory_bytes", &c.memoryBytes)}) {
    Expected<int64_t> v = positiveInt(*o, key, source);
    if (!v)
      return v.takeError();
    *field = *v;
  }
  const json::Object *peaks = o->getObject("peak_flops");
  if (!peaks || peaks->empty())
    return fieldError(source, "'peak_flops' must map precisions (bf16, "
                              "fp16, fp32) to FLOP/s");
  for (const auto &[key, v] : *peaks) {
    std::optional<double> f = v.getAsNumber();
    if (!f || !std::isfinite(*f) || *f <= 0)
      return fieldError(source, "'peak_flops." + StringRef(key) +
                                    "' must be a positive number");
    c.peakFlops[key] = *f;
  }
  Expected<double> hbm = positive(*o, "hbm_bytes_per_second", "", source);
  if (!hbm)
    return hbm.takeError();
  c.memoryBytesPerSecond = *hbm;
  // One GPU sends nothing: its links may be left out (sp-plan --calibrate
  // on one rank has none to measure).
  for (auto [key, field] : {std::pair("intra_node", &c.intraNode),
                            std::pair("inter_node", &c.interNode)}) {
    if (c.gpus() == 1 && !o->get(key)) {
      *field = Link{std::numeric_limits<double>::infinity(), 0};
      continue;
    }
    Expected<Link> link = parseLink(*o, key, source);
    if (!link)
      return link.takeError();
    *field = *link;
  }
  if (const json::Value *shared = o->get("shared_cores")) {
    const json::Object *sc = shared->getAsObject();
    std::optional<int64_t> cores = sc ? sc->getInteger("cores") : std::nullopt;
    std::optional<double> solo =
        sc ? sc->getNumber("solo_speedup") : std::nullopt;
    if (!cores || *cores < 1 || *cores >= c.gpusPerNode || !solo ||
        !std::isfinite(*solo) || *solo < 1)
      return fieldError(source, "'shared_cores' must be {\"cores\": C, "
                                "\"solo_speedup\": S}: C an integer in [1, "
                                "gpus_per_node), S >= 1");
    c.soloSpeedup = *solo;
  }
  if (const json::Value *waves = o->get("gemm_waves")) {
    const json::Object *w = waves->getAsObject();
    const json::Array *tile = w ? w->getArray("tile") : nullptr;
    std::optional<int64_t> sms = w ? w->getInteger("sms") : std::nullopt;
    std::optional<int64_t> rows, cols;
    if (tile && tile->size() == 2) {
      rows = (*tile)[0].getAsInteger();
      cols = (*tile)[1].getAsInteger();
    }
    std::optional<double> e = w ? w->getNumber("efficiency") : std::nullopt;
    if (!sms || *sms < 1 || !rows || *rows < 1 || !cols || *cols < 1 || !e ||
        !(*e > 0 && *e <= 1))
      return fieldError(
          source, "'gemm_waves' must be {\"sms\": N, \"tile\": [rows, cols], "
                  "\"efficiency\": E}: positive integers, E in (0, 1]");
    c.gemmWaves = GemmWaves{*sms, *rows, *cols, *e};
  }
  return c;
}

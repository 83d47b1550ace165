//===- Calibrate.cpp - sp-plan --calibrate
//---------------------------------===//

#include "Calibrate.h"
#include "CostModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unistd.h>

using namespace llvm;
using namespace seqpar::plan;

static Error failure(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

namespace {
/// One figure of a measured list: the named numbers of one entry.
struct Entry {
  const json::Object *o;
  double operator[](StringRef key) const {
    return o->getNumber(key).value_or(std::nan(""));
  }
};
} // namespace

/// The entries of list `key`, each with every number in `keys` positive.
static Expected<SmallVector<Entry>> entries(const json::Object &measured,
                                            StringRef key,
                                            ArrayRef<StringRef> keys,
                                            StringRef source) {
  const json::Array *list = measured.getArray(key);
  if (!list || list->empty())
    return failure(source + ": '" + key + "' must be a non-empty list");
  SmallVector<Entry> out;
  for (const json::Value &v : *list) {
    const json::Object *o = v.getAsObject();
    if (!o)
      return failure(source + ": '" + key + "' holds a non-object");
    for (StringRef k : keys)
      if (!(Entry{o}[k] > 0) || !std::isfinite(Entry{o}[k]))
        return failure(source + ": an entry of '" + key +
                       "' has no positive '" + k + "'");
    out.push_back(Entry{o});
  }
  return out;
}

static double median(SmallVector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// An entry's precision, by the cluster's names: "dtype", else fp32 (the
/// only one CPU ranks measure).
static std::string precisionOf(const Entry &e) {
  return e.o->getString("dtype").value_or("fp32").str();
}

/// Each precision's peak: the published one given to sp-calibrate
/// (--peak), else the fastest GEMM measured in it. A measured rate above a
/// given peak is an error.
static Expected<std::map<std::string, double>>
peaks(const json::Object &measured, ArrayRef<Entry> gemms, StringRef source) {
  std::map<std::string, double> fastest, out;
  for (const Entry &e : gemms) {
    double &f = fastest[precisionOf(e)];
    f = std::max(f, 2 * e["m"] * e["k"] * e["n"] / e["seconds"]);
  }
  if (const json::Object *given = measured.getObject("peak_flops"))
    for (const auto &[key, v] : *given) {
      std::optional<double> f = v.getAsNumber();
      if (!f || !(*f > 0) || !std::isfinite(*f))
        return failure(source + ": 'peak_flops." + StringRef(key) +
                       "' must be a positive number");
      auto it = fastest.find(key.str());
      if (it != fastest.end() && it->second > *f * 1.0001)
        return failure(formatv("{0}: a {1} GEMM ran at {2:e3} FLOP/s, above "
                               "the peak given ({3:e3})",
                               source, key.str(), it->second, *f)
                           .str());
      out[key.str()] = *f;
    }
  for (const auto &[precision, f] : fastest)
    out.emplace(precision, f);
  return out;
}

/// The output of a measured GEMM (Entry of "gemm"): rows x cols.
static std::pair<int64_t, int64_t> gemmOutput(const Entry &e) {
  auto m = int64_t(e["m"]), k = int64_t(e["k"]), n = int64_t(e["n"]);
  StringRef op = e.o->getString("op").value_or("linear");
  if (op == "linear_grad_input")
    return {m, k};
  if (op == "linear_grad_weight")
    return {k, n};
  return {m, n};
}

Expected<CalibrationFiles>
seqpar::plan::fitCalibration(StringRef text, StringRef source,
                             int64_t memoryBytes, const GemmWaves *waves) {
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return failure(source + ": not JSON: " + toString(value.takeError()));
  const json::Object *m = value->getAsObject();
  std::optional<int64_t> ranks = m ? m->getInteger("ranks") : std::nullopt;
  if (!ranks || *ranks < 1)
    return failure(source + ": 'ranks' must be a positive integer");
  std::string backend = m->getString("backend").value_or("cpu").str();
  if (std::optional<int64_t> device = m->getInteger("device_memory_bytes"))
    memoryBytes = *device;

  auto gemms = entries(*m, "gemm", {"m", "k", "n", "seconds"}, source);
  if (!gemms)
    return gemms.takeError();
  auto peak = peaks(*m, *gemms, source);
  if (!peak)
    return peak.takeError();
  auto peakOf = [&](const std::string &precision) -> Expected<double> {
    auto it = peak->find(precision);
    if (it == peak->end())
      return failure(source + ": no " + precision +
                     " GEMM measured and no peak given for it");
    return it->second;
  };
  SmallVector<double> gemmRates;
  for (const Entry &e : *gemms) {
    auto [rows, cols] = gemmOutput(e);
    gemmRates.push_back(2 * e["m"] * e["k"] * e["n"] / e["seconds"] /
                        peak->at(precisionOf(e)) /
                        (waves ? waveEfficiency(rows, cols, *waves) : 1.0));
  }
  double gemm = median(gemmRates);

  // Causal attention: half of 4·b·heads·s²·d forward, 2.5 times that
  // backward (Flops.h), over its precision's peak.
  auto attention = entries(
      *m, "attention",
      {"s", "b", "heads", "head_dim", "forward_seconds", "backward_seconds"},
      source);
  if (!attention)
    return attention.takeError();
  double attentionPeakSeconds = 0, attentionSeconds = 0;
  for (const Entry &e : *attention) {
    Expected<double> p = peakOf(precisionOf(e));
    if (!p)
      return p.takeError();
    double forward = 2 * e["b"] * e["heads"] * e["s"] * e["s"] * e["head_dim"];
    attentionPeakSeconds += 3.5 * forward / *p;
    attentionSeconds += e["forward_seconds"] + e["backward_seconds"];
  }

  auto memory = entries(*m, "memory_bound", {"bytes", "seconds"}, source);
  if (!memory)
    return memory.takeError();
  double copy = 0, kernelBytes = 0, kernelSeconds = 0;
  for (const Entry &e : *memory)
    if (e.o->getString("op") == "copy")
      copy = e["bytes"] / e["seconds"];
  if (copy <= 0)
    return failure(source + ": 'memory_bound' needs the copy");
  json::Object memoryOps;
  for (const Entry &e : *memory) {
    std::optional<StringRef> op = e.o->getString("op");
    if (!op || *op == "copy")
      continue;
    memoryOps[op->str()] = std::min(1.0, e["bytes"] / e["seconds"] / copy);
    kernelBytes += e["bytes"];
    kernelSeconds += e["seconds"];
  }
  if (kernelSeconds <= 0)
    return failure(source + ": 'memory_bound' needs a kernel besides the copy");

  json::Object peakFlops;
  for (const auto &[precision, f] : *peak)
    peakFlops[precision] = f;
  std::string machine =
      std::to_string(*ranks) + (backend == "cpu" ? " CPU rank" : " rank") +
      (*ranks == 1 ? "" : "s") +
      (backend == "cpu" ? "" : " of the " + backend + " backend");
  CalibrationFiles files;
  files.cluster = json::Object{
      {"name", "this machine, " + machine},
      {"comment",
       "Measured by sp-plan --calibrate (sp-calibrate under mpirun, every "
       "rank at once): peak_flops per precision is the peak given to "
       "sp-calibrate (--peak), else the fastest GEMM measured in it; "
       "hbm_bytes_per_second a copy's rate; the links a least-squares fit "
       "of all-reduce and all-gather times (one node: both links are the "
       "same; one rank: no link); memory_bytes each device's memory over "
       "the ranks sharing it (CPU ranks: the machine's); shared_cores, "
       "where the ranks outnumber the cores, how much faster a rank runs "
       "a GEMM alone than with every rank busy."},
      {"nodes", 1},
      {"gpus_per_node", *ranks},
      {"memory_bytes", memoryBytes},
      {"peak_flops", std::move(peakFlops)},
      {"hbm_bytes_per_second", copy}};
  if (const json::Object *shared = m->getObject("shared_cores"))
    files.cluster["shared_cores"] = json::Object(*shared);
  files.calibration = json::Object{
      {"comment",
       "Measured by sp-plan --calibrate on " + machine +
           ": gemm is the median GEMM's rate over its precision's peak, "
           "attention causal attention's (forward and backward) over its "
           "precision's peak, ring_attention the ring's over all ranks "
           "with the link model's time for its bytes taken off, "
           "memory_ops each measured memory-bound kernel's bytes per "
           "second over a copy's and memory all of theirs together (the "
           "rate of the ops not measured)."},
      {"gemm", std::min(1.0, gemm)},
      {"attention", std::min(1.0, attentionPeakSeconds / attentionSeconds)},
      {"memory", std::min(1.0, kernelBytes / kernelSeconds / copy)},
      {"memory_ops", std::move(memoryOps)}};

  // One rank sends nothing: no link to fit, none needed.
  if (*ranks == 1)
    return files;
  // Weighted least squares (weights 1/t², relative errors) of
  // t = latency + bytes_sent / bandwidth.
  auto collectives =
      entries(*m, "collectives", {"bytes_sent", "seconds"}, source);
  if (!collectives)
    return collectives.takeError();
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Entry &e : *collectives) {
    double w = 1 / (e["seconds"] * e["seconds"]), x = e["bytes_sent"],
           y = e["seconds"];
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  double det = sw * sxx - sx * sx;
  double perByte = det > 0 ? (sw * sxy - sx * sy) / det : 0;
  double latency = det > 0 ? (sy - perByte * sx) / sw : -1;
  if (latency < 0) {
    latency = 0;
    perByte = sxy / sxx;
  }
  if (!(perByte > 0))
    return failure(source + ": the collectives' times do not grow with "
                            "their bytes; no bandwidth fits");
  json::Object link{{"bytes_per_second", 1 / perByte},
                    {"latency_seconds", latency}};
  files.cluster["intra_node"] = json::Object(link);
  files.cluster["inter_node"] = std::move(link);

  // Ring attention (f32, on more than one rank): its FLOPs over its time
  // less what the link model charges for its bytes, one collective per
  // call, as the planner charges them.
  if (m->getArray("ring_attention")) {
    auto rings = entries(*m, "ring_attention",
                         {"s", "ranks", "b", "heads", "head_dim",
                          "forward_seconds", "backward_seconds", "bytes_sent"},
                         source);
    if (!rings)
      return rings.takeError();
    Expected<double> fp32 = peakOf("fp32");
    if (!fp32)
      return fp32.takeError();
    double flops = 0, seconds = 0;
    for (const Entry &e : *rings) {
      flops += 3.5 * 2 * e["b"] * e["heads"] * e["s"] * e["s"] * e["ranks"] *
               e["head_dim"];
      seconds += e["forward_seconds"] + e["backward_seconds"] -
                 (2 * latency + e["bytes_sent"] * perByte);
    }
    if (seconds > 0)
      files.calibration["ring_attention"] =
          std::min(1.0, flops / seconds / *fp32);
  }
  return files;
}

/// Writes `object` to `path` whole or not at all (a temporary file renamed).
static Error writeJson(StringRef path, json::Object object) {
  std::string temporary = (path + ".tmp").str();
  {
    std::error_code ec;
    raw_fd_ostream os(temporary, ec);
    if (!ec) {
      os << formatv("{0:2}", json::Value(std::move(object))) << "\n";
      os.close();
      ec = os.error();
    }
    if (!ec)
      ec = sys::fs::rename(temporary, path);
    if (ec) {
      sys::fs::remove(temporary);
      return failure("cannot write '" + path + "': " + ec.message());
    }
  }
  return Error::success();
}

Error seqpar::plan::measure(StringRef launcher, StringRef worker, int64_t ranks,
                            StringRef measured) {
  SmallVector<StringRef> words;
  SplitString(launcher, words);
  if (words.empty())
    return failure("--launcher is empty");
  ErrorOr<std::string> program = words[0].contains('/')
                                     ? ErrorOr<std::string>(words[0].str())
                                     : sys::findProgramByName(words[0]);
  if (!program)
    return failure("--launcher: '" + words[0] + "' is not on PATH");
  std::string np = std::to_string(ranks);
  SmallVector<StringRef> args(words.begin(), words.end());
  args.append({"-np", np, worker, measured});
  std::string message;
  int rc =
      sys::ExecuteAndWait(*program, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return failure("'" + join(args, " ") + "' failed" +
                   (message.empty() ? " (exit " + std::to_string(rc) + ")"
                                    : ": " + message));
  return Error::success();
}

/// The text of file `path`, or an error naming it.
static Expected<std::string> readText(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(path);
  if (!text)
    return failure("cannot read '" + path + "': " + text.getError().message());
  return (*text)->getBuffer().str();
}

/// `base` with the fitted cluster's fields in its place: the peaks (the
/// base's own where sp-calibrate was given none), the memory bandwidth, the
/// memory, and the links where measured (one node's: the intra-node link).
static json::Object onBase(json::Object base, json::Object &fitted,
                           StringRef measured) {
  if (const json::Value *peaks = fitted.get("peak_flops"))
    base["peak_flops"] = *peaks;
  for (StringRef key : {"hbm_bytes_per_second", "memory_bytes"})
    if (const json::Value *v = fitted.get(key))
      base[key] = *v;
  if (const json::Value *link = fitted.get("intra_node"))
    base["intra_node"] = *link;
  std::string name = base.getString("name").value_or("the cluster").str();
  base["name"] = name + ", calibrated by " + measured.str();
  base["comment"] =
      "The base cluster file's description with what sp-calibrate measured "
      "in its place (sp-plan --calibrate --measured --cluster): peak_flops, "
      "hbm_bytes_per_second, memory_bytes, and intra_node where more than "
      "one rank was measured. The base's comment: " +
      base.getString("comment").value_or("none").str();
  return base;
}

Error seqpar::plan::writeCalibration(StringRef measured, StringRef dir,
                                     StringRef base) {
  Expected<std::string> text = readText(measured);
  if (!text)
    return text.takeError();
  // The base cluster: checked whole, its wave model for the GEMMs.
  std::optional<Cluster> baseCluster;
  json::Object baseObject;
  if (!base.empty()) {
    Expected<std::string> baseText = readText(base);
    if (!baseText)
      return baseText.takeError();
    Expected<Cluster> c = parseCluster(*baseText, base);
    if (!c)
      return c.takeError();
    baseCluster = std::move(*c);
    baseObject = std::move(*json::parse(*baseText)->getAsObject());
  }
  // CPU ranks share the machine's memory (a device's: measured.json says).
  Expected<json::Value> value = json::parse(*text);
  json::Object *o = value ? value->getAsObject() : nullptr;
  if (!value)
    consumeError(value.takeError());
  std::optional<int64_t> ranks = o ? o->getInteger("ranks") : std::nullopt;
  // The base's published peaks are the peaks sp-calibrate was not given.
  if (o && baseCluster) {
    json::Object peaks;
    for (const auto &entry : baseCluster->peakFlops)
      peaks[entry.getKey()] = entry.getValue();
    if (const json::Object *given = o->getObject("peak_flops"))
      for (const auto &[key, v] : *given)
        peaks[key] = v;
    (*o)["peak_flops"] = std::move(peaks);
    *text = formatv("{0}", json::Value(std::move(*o))).str();
  }
  int64_t machine = int64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  Expected<CalibrationFiles> files = fitCalibration(
      *text, measured, machine / std::max<int64_t>(ranks.value_or(1), 1),
      baseCluster && baseCluster->gemmWaves ? &*baseCluster->gemmWaves
                                            : nullptr);
  if (!files)
    return files.takeError();
  if (baseCluster)
    files->cluster = onBase(std::move(baseObject), files->cluster, measured);
  if (std::error_code ec = sys::fs::create_directories(dir))
    return failure("cannot create '" + dir + "': " + ec.message());
  SmallString<256> cluster(dir), calibration(dir);
  sys::path::append(cluster, "cluster.json");
  sys::path::append(calibration, "calibration.json");
  if (Error e = writeJson(cluster, std::move(files->cluster)))
    return e;
  return writeJson(calibration, std::move(files->calibration));
}

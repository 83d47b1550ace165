//===- CostModel.cpp - sp-plan's step-time model -------------------------===//

#include "CostModel.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace seqpar::plan;

Expected<Calibration> seqpar::plan::parseCalibration(StringRef text,
                                                     StringRef source) {
  auto error = [&](const Twine &m) {
    return createStringError(inconvertibleErrorCode(), source + ": " + m);
  };
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return error("not JSON: " + toString(value.takeError()));
  const json::Object *o = value->getAsObject();
  if (!o)
    return error("must be a JSON object");
  Calibration c;
  auto efficiency = [&](const json::Value &v,
                        const Twine &key) -> Expected<double> {
    std::optional<double> e = v.getAsNumber();
    if (!e || !(*e > 0 && *e <= 1))
      return error("'" + key + "' must be in (0, 1]");
    return *e;
  };
  for (const auto &[key, v] : *o) {
    if (key == "attention_scores") {
      std::optional<StringRef> kind = v.getAsString();
      if (kind == "fused" || kind == "materialized") {
        c.attentionScores = *kind == "fused" ? AttentionScores::fused
                                             : AttentionScores::materialized;
        continue;
      }
      return error("'attention_scores' must be \"fused\" or \"materialized\"");
    }
    if (key == "memory_ops") {
      const json::Object *ops = v.getAsObject();
      if (!ops)
        return error("'memory_ops' must map op names to efficiencies");
      for (const auto &[op, e] : *ops) {
        Expected<double> x = efficiency(e, "memory_ops." + StringRef(op));
        if (!x)
          return x.takeError();
        c.memoryByOp[op] = *x;
      }
      continue;
    }
    // Unset where absent (their defaults depend on other settings).
    std::optional<double> *unset = key == "gemm"             ? &c.gemm
                                   : key == "ring_attention" ? &c.ringAttention
                                                             : nullptr;
    double *field = key == "attention" ? &c.attention
                    : key == "memory"  ? &c.memory
                                       : nullptr;
    if (!field && !unset) {
      // Documentation fields are allowed; numbers must name a class.
      if (StringRef(key).starts_with("comment") || key == "source")
        continue;
      return error("unknown op class '" + StringRef(key) +
                   "' (gemm, attention, ring_attention, memory, memory_ops, "
                   "attention_scores)");
    }
    Expected<double> x = efficiency(v, StringRef(key));
    if (!x)
      return x.takeError();
    if (unset)
      *unset = *x;
    else
      *field = *x;
  }
  return c;
}

int64_t seqpar::plan::materializedScoreBytes(int64_t elementBytes, bool dropout,
                                             bool backward) {
  int64_t e = elementBytes, mask = dropout ? 2 * e + 1 : 0;
  // The backward forms P again (the forward less P V's read), then the
  // gradients.
  return backward ? (3 * e + mask) + (7 * e + mask) : 4 * e + mask;
}

int64_t seqpar::plan::totalMemoryBoundBytes(const StageFacts &facts) {
  int64_t total = 0;
  for (const auto &entry : facts.memoryBoundBytes)
    total += entry.getValue();
  return total;
}

bool seqpar::plan::axisIsIntraNode(const Mesh &mesh, size_t axis,
                                   int64_t gpusPerNode) {
  int64_t span = 1;
  for (size_t i = axis; i < mesh.sizes.size(); ++i)
    span *= mesh.sizes[i];
  return span <= gpusPerNode && gpusPerNode % span == 0;
}

double seqpar::plan::waveEfficiency(int64_t rows, int64_t cols,
                                    const GemmWaves &waves) {
  if (rows <= 0 || cols <= 0)
    return 1;
  auto efficiency = [&](int64_t tileRows, int64_t tileCols) {
    int64_t tiles =
        ((rows + tileRows - 1) / tileRows) * ((cols + tileCols - 1) / tileCols);
    int64_t slots = (tiles + waves.sms - 1) / waves.sms * waves.sms;
    return double(rows) * double(cols) /
           (double(slots) * double(tileRows) * double(tileCols));
  };
  return std::max(efficiency(waves.tileRows, waves.tileCols),
                  efficiency(waves.tileCols, waves.tileRows));
}

double seqpar::plan::gemmSeconds(const StageFacts &facts,
                                 const Cluster &cluster, double peakFlops,
                                 const Calibration &calibration) {
  if (!cluster.gemmWaves)
    return double(facts.gemmFlops) /
           (peakFlops * calibration.gemm.value_or(Calibration::kDefaultGemm));
  double rate =
      peakFlops * calibration.gemm.value_or(cluster.gemmWaves->efficiency);
  double seconds = 0;
  int64_t shaped = 0;
  for (const auto &[output, flops] : facts.gemmFlopsByOutput) {
    seconds +=
        double(flops) / (rate * waveEfficiency(output.first, output.second,
                                               *cluster.gemmWaves));
    shaped += flops;
  }
  return seconds + double(facts.gemmFlops - shaped) / rate;
}

double seqpar::plan::bubbleFraction(int64_t stages, int64_t microBatches) {
  return double(stages - 1) / double(microBatches + stages - 1);
}

int64_t seqpar::plan::stagesPerNode(const Cluster &cluster, int64_t ranks,
                                    int64_t stages) {
  int64_t perStage = stages > 0 ? ranks / stages : ranks;
  if (perStage < 1 || perStage >= cluster.gpusPerNode ||
      cluster.gpusPerNode % perStage)
    return 1;
  return std::min(stages, cluster.gpusPerNode / perStage);
}

double seqpar::plan::pipelineStretch(const Cluster &cluster, int64_t ranks,
                                     int64_t stages, int64_t microBatches) {
  double stretch = 1 / (1 - bubbleFraction(stages, microBatches));
  if (cluster.soloSpeedup && stagesPerNode(cluster, ranks, stages) > 1)
    return std::max(1.0, stretch / *cluster.soloSpeedup);
  return stretch;
}

double seqpar::plan::linkSeconds(int64_t bytes, int64_t count,
                                 const Link &link) {
  return double(bytes) / link.bytesPerSecond +
         double(count) * link.latencySeconds;
}

StageTime seqpar::plan::stageTime(const StageFacts &facts, const Mesh &mesh,
                                  const Cluster &cluster, double peakFlops,
                                  const Calibration &calibration,
                                  int64_t fuseChunks) {
  StageTime t;
  t.compute =
      gemmSeconds(facts, cluster, peakFlops, calibration) +
      double(facts.attentionFlops - facts.ringAttentionFlops) /
          (peakFlops * calibration.attention) +
      double(facts.ringAttentionFlops) / (peakFlops * calibration.ring());
  for (const auto &entry : facts.memoryBoundBytes)
    t.compute +=
        double(entry.getValue()) /
        (cluster.memoryBytesPerSecond * calibration.memoryOf(entry.getKey()));
  if (calibration.attentionScores == AttentionScores::materialized)
    t.compute += double(facts.attentionScoreBytes) /
                 (cluster.memoryBytesPerSecond * calibration.memory);
  // The backward's compute, which async gradient buckets overlap; its
  // share of the compute time by FLOPs.
  int64_t flops = facts.gemmFlops + facts.attentionFlops;
  double backward =
      flops ? t.compute * double(facts.backwardFlops) / double(flops) : 0;
  double asyncTotal = 0, asyncLast = 0;
  for (size_t i = 0; i < mesh.axes.size(); ++i) {
    auto it = facts.traffic.find(mesh.axes[i]);
    if (it == facts.traffic.end())
      continue;
    const AxisTraffic &a = it->second;
    const Link &link = axisIsIntraNode(mesh, i, cluster.gpusPerNode)
                           ? cluster.intraNode
                           : cluster.interNode;
    t.exposedComm += linkSeconds(a.exposedBytes, a.exposedCount, link);
    double fused = linkSeconds(a.fusedBytes, a.fusedCount, link);
    double fusedExposed = fused / double(std::max<int64_t>(fuseChunks, 1));
    t.exposedComm += fusedExposed;
    t.hiddenComm += fused - fusedExposed;
    double async = linkSeconds(a.asyncBytes, a.asyncCount, link);
    asyncTotal += async;
    if (a.asyncCount)
      asyncLast = std::max(asyncLast, async / double(a.asyncCount));
  }
  double asyncExposed =
      asyncTotal > 0 ? std::max(asyncLast, asyncTotal - backward) : 0;
  t.exposedComm += asyncExposed;
  t.hiddenComm += asyncTotal - asyncExposed;
  return t;
}

Prediction seqpar::plan::predict(ArrayRef<StageFacts> stages, const Mesh &mesh,
                                 const Cluster &cluster, double peakFlops,
                                 const Calibration &calibration,
                                 int64_t fuseChunks, int64_t microBatches,
                                 int64_t tokensPerStep) {
  Prediction p;
  double sum = 0;
  SmallVector<double> totals;
  for (const StageFacts &s : stages) {
    StageTime t =
        stageTime(s, mesh, cluster, peakFlops, calibration, fuseChunks);
    totals.push_back(t.total());
    sum += t.total();
    if (t.total() > p.slowest.total())
      p.slowest = t;
  }
  int64_t numStages = int64_t(stages.size());
  // The first micro-batch's forward and the last one's backward cross
  // every stage; the other micro-batches pass at the slowest stage's pace:
  // per micro-batch, sum_s t_s + (M - 1) max_s t_s. With equal stages that
  // is the slowest stage's step stretched by the bubble (bubbleFraction);
  // a lighter stage (the first without the head, say) shortens it.
  double m = double(std::max<int64_t>(microBatches, 1));
  p.stepSeconds = (sum + (m - 1) * p.slowest.total()) / m;
  // Shared cores: a node's idle stages lend theirs to its busy ones.
  int64_t ranks = 1;
  for (int64_t size : mesh.sizes)
    ranks *= size;
  int64_t shared = stagesPerNode(cluster, ranks, numStages);
  if (cluster.soloSpeedup && shared > 1) {
    double work = 0;
    for (int64_t first = 0; first < numStages; first += shared) {
      int64_t last = std::min(numStages, first + shared);
      double nodeSum = 0;
      for (int64_t s = first; s < last; ++s)
        nodeSum += totals[s];
      work = std::max(work, nodeSum / double(last - first));
    }
    p.stepSeconds = std::max(work, p.stepSeconds / *cluster.soloSpeedup);
  }
  // (On shared cores the slowest stage may run faster than its rate: no
  // idle time then.)
  p.bubble = p.stepSeconds > 0
                 ? std::max(0.0, 1 - p.slowest.total() / p.stepSeconds)
                 : 0;
  p.tokensPerSecond = double(tokensPerStep) / p.stepSeconds;
  // Each stage's FLOPs run on gpus / stages ranks: summed over all ranks
  // and divided by all ranks' peak, the rank count cancels but the stages'.
  double model = 0, hardware = 0;
  for (const StageFacts &s : stages) {
    model += double(s.modelFlops);
    hardware += double(s.modelFlops + s.recomputeFlops);
  }
  double denominator = double(numStages) * p.stepSeconds * peakFlops;
  p.mfu = model / denominator;
  p.hfu = hardware / denominator;
  return p;
}

//===- Bound.cpp - a lower bound on a layout's step time -----------------===//

#include "Bound.h"

using namespace llvm;
using namespace seqpar::plan;

/// a - b - c + d, field by field; nullopt if any field comes out negative.
/// Counts and async bytes are left 0: latencies and gradient buckets only
/// add time, and the time of what is left is linear in the facts.
static std::optional<StageFacts> doubleDifference(const StageFacts &a,
                                                  const StageFacts &b,
                                                  const StageFacts &c,
                                                  const StageFacts &d) {
  bool negative = false;
  auto f = [&](int64_t x, int64_t y, int64_t z, int64_t w) {
    int64_t v = x - y - z + w;
    negative |= v < 0;
    return v;
  };
  StageFacts out;
  out.gemmFlops = f(a.gemmFlops, b.gemmFlops, c.gemmFlops, d.gemmFlops);
  out.attentionFlops =
      f(a.attentionFlops, b.attentionFlops, c.attentionFlops, d.attentionFlops);
  out.ringAttentionFlops = f(a.ringAttentionFlops, b.ringAttentionFlops,
                             c.ringAttentionFlops, d.ringAttentionFlops);
  out.attentionScoreBytes = f(a.attentionScoreBytes, b.attentionScoreBytes,
                              c.attentionScoreBytes, d.attentionScoreBytes);
  for (const auto &e : a.memoryBoundBytes) {
    StringRef op = e.getKey();
    out.memoryBoundBytes[op] =
        f(e.getValue(), b.memoryBoundBytes.lookup(op),
          c.memoryBoundBytes.lookup(op), d.memoryBoundBytes.lookup(op));
  }
  for (const auto &e : a.traffic) {
    StringRef axis = e.getKey();
    const AxisTraffic &x = e.getValue();
    AxisTraffic y = b.traffic.lookup(axis), z = c.traffic.lookup(axis),
                w = d.traffic.lookup(axis);
    AxisTraffic &t = out.traffic[axis];
    t.exposedBytes =
        f(x.exposedBytes, y.exposedBytes, z.exposedBytes, w.exposedBytes);
    t.fusedBytes = f(x.fusedBytes, y.fusedBytes, z.fusedBytes, w.fusedBytes);
  }
  if (negative)
    return std::nullopt;
  return out;
}

Expected<const StepBound::Entry *> StepBound::entry(const Layout &layout) {
  auto key = std::make_tuple(layout.tp, layout.sp, layout.cp,
                             layout.cp > 1 ? layout.cpAttention : "",
                             layout.recompute);
  if (auto it = cache.find(key); it != cache.end())
    return &it->second;
  Entry &e = cache[key];
  // Its (tp, SP, cp, attention, recompute) alone.
  Layout alone = layout;
  alone.pp = alone.dp = alone.microBatches = 1;
  alone.zero = 0;
  // f[layers - 1][sequences - 1].
  CompileResult f[2][2];
  for (int64_t n = 1; n <= 2; ++n)
    for (int64_t s = 1; s <= 2; ++s) {
      ++compiles;
      Expected<CompileResult> r = compiler.compileAt(alone, o.seqLen, s, n);
      // A model this shallow or narrow that cannot be imported gives no
      // bound; the layouts' own compiles say why.
      if (!r) {
        consumeError(r.takeError());
        ++unbounded;
        return &e;
      }
      if (!r->rejection.empty() || r->stages.size() != 1) {
        ++unbounded;
        e.rejection = r->rejection;
        return &e;
      }
      f[n - 1][s - 1] = std::move(*r);
    }
  std::optional<StageFacts> d =
      doubleDifference(f[1][1].stages[0], f[1][0].stages[0], f[0][1].stages[0],
                       f[0][0].stages[0]);
  if (!d) {
    ++unbounded;
    return &e;
  }
  // The tp and cp axes span the same ranks in this mesh as in any layout's
  // (the mesh is pp, dp, cp, tp, outermost first), so their links are the
  // same.
  e.seconds = stageTime(*d, f[1][1].mesh, cluster, o.peakFlops, o.calibration,
                        o.fuseChunks)
                  .total();
  return &e;
}

Expected<std::string> StepBound::rejection(const Layout &layout) {
  Expected<const Entry *> e = entry(layout);
  if (!e)
    return e.takeError();
  return (*e)->rejection;
}

Expected<double> StepBound::lowerBound(const Layout &layout,
                                       int64_t microBatches) {
  Expected<const Entry *> e = entry(layout);
  if (!e)
    return e.takeError();
  if (!(*e)->seconds || layout.pp < 1 || layout.dp < 1)
    return 0.0;
  // The stage with the fewest layers, and the sequences each rank of it
  // sees in a step.
  double layers = double(o.layers / layout.pp);
  double sequences = double(o.globalBatch) / double(layout.dp);
  return *(*e)->seconds * layers * sequences *
         pipelineStretch(cluster, layout.tp * layout.cp * layout.pp * layout.dp,
                         layout.pp, microBatches);
}

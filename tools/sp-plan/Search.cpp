//===- Search.cpp - the layouts of a cluster, compiled and ranked --------===//

#include "Search.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace seqpar::plan;
namespace json = llvm::json;

std::string seqpar::plan::bytesText(int64_t b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return formatv(u ? "{0:F2} {1}" : "{0:F0} {1}", v, units[u]).str();
}

static SmallVector<int64_t> divisors(int64_t n) {
  SmallVector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i)
    if (n % i == 0)
      d.push_back(i);
  return d;
}

namespace {
/// The search's state; `group` runs one (tp, SP, cp, pp, dp, ZeRO,
/// attention) over its recompute policies and micro-batch counts.
class Search {
public:
  Search(CandidateCompiler &compiler, const Cluster &cluster,
         const SearchOptions &options)
      : compiler(compiler), cluster(cluster), o(options) {
    if (!o.microBatches.empty())
      microBatchCounts.assign(o.microBatches.begin(), o.microBatches.end());
    else
      for (int64_t m = 1; m <= o.maxMicroBatches; m *= 2)
        microBatchCounts.push_back(m);
    llvm::sort(microBatchCounts);
    for (const char *p : {"none", "selective", "full"})
      if (o.recompute.empty() || o.recompute == p)
        policies.push_back(p);
  }

  Error group(const Layout &base);
  Error showWhole();
  SearchResult out;

private:
  void reject(const std::string &reason, const Layout &l) {
    out.rejected[reason].push_back(l.name());
  }
  std::string noFit() const {
    return "does not fit in " + bytesText(cluster.memoryBytes) + " per GPU";
  }
  /// "<layout> (by <bytes over>, needs <bytes>)", "composed:" if it was.
  std::string miss(const Layout &l, const CompileResult &r) const {
    int64_t total = r.peakTotal();
    return l.name() + (r.composed ? " (composed: by " : " (by ") +
           bytesText(total - cluster.memoryBytes) + ", needs " +
           bytesText(total) + ")";
  }
  bool rank(const Layout &l, const CompileResult &r);
  Expected<bool> evaluate(const Layout &l);
  /// Compiles `base`'s leanest variants; true if none fits (and the
  /// group is done).
  Expected<bool> leanFirst(const Layout &base);
  /// Compiles `l` (counted against --max-compiles); nullopt when capped.
  Expected<std::optional<CompileResult>> compile(const Layout &l);

  CandidateCompiler &compiler;
  const Cluster &cluster;
  const SearchOptions &o;
  SmallVector<int64_t> microBatchCounts;
  SmallVector<const char *, 3> policies;
  /// Set by evaluate when the compiler (not memory) rejected the layout.
  bool compilerRejected = false;
  /// The group's leanest variants, compiled before the others, by name.
  std::map<std::string, CompileResult> lean;
};
} // namespace

bool Search::rank(const Layout &l, const CompileResult &r) {
  if (r.peakTotal() > cluster.memoryBytes) {
    // One group for every layout that does not fit, each named with how
    // much it misses by.
    out.rejected[noFit()].push_back(miss(l, r));
    return false;
  }
  out.ranked.push_back(
      Ranked{l,
             predict(r.stages, r.mesh, cluster, o.peakFlops, o.calibration,
                     o.fuseChunks, l.microBatches, o.globalBatch * o.seqLen),
             json::Object(r.peak()), r.stagePeakTotals(), r.composed});
  return true;
}

Expected<std::optional<CompileResult>> Search::compile(const Layout &l) {
  if (auto it = lean.find(l.name()); it != lean.end())
    return std::move(it->second);
  if (out.compiled >= o.maxCompiles) {
    ++out.capped;
    return std::nullopt;
  }
  ++out.compiled;
  Expected<CompileResult> r =
      compiler.compile(l, o.seqLen, o.globalBatch / l.microBatches);
  if (!r)
    return r.takeError();
  return std::move(*r);
}

Expected<bool> Search::evaluate(const Layout &l) {
  if (o.globalBatch % l.microBatches) {
    reject("the micro-batch count does not divide --global-batch " +
               std::to_string(o.globalBatch),
           l);
    return false;
  }
  Expected<std::optional<CompileResult>> r = compile(l);
  if (!r)
    return r.takeError();
  if (!*r)
    return false;
  if (!(*r)->rejection.empty()) {
    compilerRejected = true;
    reject((*r)->rejection, l);
    return false;
  }
  return rank(l, **r);
}

Expected<bool> Search::leanFirst(const Layout &base) {
  lean.clear();
  if (!o.leanFirst)
    return false;
  // Memory's leanest variants: the last policy (full recompute, unless
  // --recompute fixes it), with the fewest micro-batches and with the most
  // that divide the global batch. Full recompute keeps the least; a
  // micro-batch loop adds a gradient accumulator once, after which more
  // micro-batches only shrink the activations (docs/planner.md). If
  // neither fits, no variant does.
  Layout one = base, most = base;
  one.recompute = most.recompute = policies.back();
  one.microBatches = most.microBatches = 0;
  for (int64_t m : microBatchCounts)
    if (o.globalBatch % m == 0) {
      one.microBatches = one.microBatches ? one.microBatches : m;
      most.microBatches = m;
    }
  if (!one.microBatches)
    return false;
  std::string why;
  for (const Layout &l : {one, most}) {
    if (lean.count(l.name()))
      continue;
    Expected<std::optional<CompileResult>> r = compile(l);
    if (!r)
      return r.takeError();
    if (!*r || !(*r)->rejection.empty() ||
        (*r)->peakTotal() <= cluster.memoryBytes) {
      if (*r)
        lean.emplace(l.name(), std::move(**r));
      return false;
    }
    why += (why.empty() ? "" : "; ") + miss(l, **r);
    lean.emplace(l.name(), std::move(**r));
  }
  ++out.leanRejected;
  out.rejected[noFit() + ", even with full recompute and 1 or the most "
                         "micro-batches (nothing else of the layout "
                         "compiled)"]
      .push_back(why);
  return true;
}

Error Search::group(const Layout &base) {
  size_t tried = 0, total = policies.size() * microBatchCounts.size();
  if (Expected<bool> pruned = leanFirst(base)) {
    if (*pruned) {
      out.dominated += int64_t(total - lean.size());
      return Error::success();
    }
  } else {
    return pruned.takeError();
  }

  // Without a pipeline the model's step time does not fall with more
  // micro-batches or recompute: the first (policy, M) that fits dominates
  // the rest. With one, more micro-batches shrink the bubble: each M keeps
  // its cheapest policy that fits.
  bool done = false;
  auto tryOne = [&](const char *policy, int64_t m) -> Error {
    compilerRejected = false;
    Layout l = base;
    l.recompute = policy;
    l.microBatches = m;
    ++tried;
    Expected<bool> fits = evaluate(l);
    if (!fits)
      return fits.takeError();
    done = *fits;
    return Error::success();
  };
  if (base.pp == 1) {
    // A recompute policy changes no split: a layout and M the compiler
    // rejected without recompute are not compiled again.
    SmallVector<int64_t> rejectedM;
    for (const char *policy : policies) {
      for (int64_t m : microBatchCounts) {
        if (llvm::is_contained(rejectedM, m)) {
          ++tried;
          ++out.skipped;
          continue;
        }
        if (Error e = tryOne(policy, m))
          return e;
        if (compilerRejected)
          rejectedM.push_back(m);
        if (done)
          break;
      }
      if (done)
        break;
    }
  } else {
    for (int64_t m : microBatchCounts)
      for (size_t k = 0; k < policies.size(); ++k) {
        if (Error e = tryOne(policies[k], m))
          return e;
        if (compilerRejected && k == 0) {
          tried += policies.size() - 1;
          out.skipped += int64_t(policies.size()) - 1;
          break;
        }
        if (done) {
          done = false;
          break;
        }
      }
  }
  out.dominated += int64_t(total - tried);
  return Error::success();
}

Error Search::showWhole() {
  auto byStepTime = [](const Ranked &a, const Ranked &b) {
    return a.prediction.stepSeconds < b.prediction.stepSeconds;
  };
  std::vector<Ranked> &ranked = out.ranked;
  llvm::stable_sort(ranked, byStepTime);
  // The rows shown are compiled whole: their figures are the compiler's.
  // A replaced row may move, so each scan starts again from the top.
  while (true) {
    size_t shown = std::min(o.top, ranked.size()), i = 0;
    while (i < shown && !ranked[i].composed)
      ++i;
    if (i == shown)
      break;
    Layout l = ranked[i].layout;
    ranked.erase(ranked.begin() + i);
    Expected<CompileResult> whole =
        compiler.compileFull(l, o.seqLen, o.globalBatch / l.microBatches);
    if (!whole)
      return whole.takeError();
    if (!whole->rejection.empty())
      reject(whole->rejection, l);
    else if (rank(l, *whole))
      llvm::stable_sort(ranked, byStepTime);
  }
  return Error::success();
}

Expected<SearchResult> seqpar::plan::searchLayouts(CandidateCompiler &compiler,
                                                   const Cluster &cluster,
                                                   const SearchOptions &o) {
  Search search(compiler, cluster, o);
  int64_t gpus = cluster.gpus();
  for (int64_t tp : divisors(gpus))
    for (int64_t cp : divisors(gpus / tp))
      for (int64_t pp : divisors(gpus / tp / cp))
        for (bool sp : {false, true}) {
          if ((sp && tp == 1) || (o.tp && tp != o.tp) || (o.cp && cp != o.cp) ||
              (o.pp && pp != o.pp))
            continue;
          int64_t dp = gpus / tp / cp / pp;
          // ZeRO 0 / 1, and with cp both attentions.
          for (int64_t variant = 0; variant < 4; ++variant) {
            int64_t zero = variant % 2;
            bool ring = variant / 2;
            if ((zero && dp * cp == 1) || (ring && cp == 1))
              continue;
            Layout base;
            base.tp = tp;
            base.cp = cp;
            base.pp = pp;
            base.dp = dp;
            base.sp = sp;
            base.zero = zero;
            base.cpAttention = ring ? "ring" : "allgather";
            if (Error e = search.group(base))
              return std::move(e);
          }
        }
  if (Error e = search.showWhole())
    return std::move(e);
  return std::move(search.out);
}

//===- Search.cpp - the layouts of a cluster, compiled and ranked --------===//

#include "Search.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

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
      : compiler(compiler), cluster(cluster), o(options),
        bound(compiler, cluster,
              StepBound::Options{options.seqLen, options.globalBatch,
                                 options.layers, options.fuseChunks,
                                 options.peakFlops, options.calibration}) {
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

  /// Runs `base` over its recompute policies and micro-batch counts (only
  /// the variants named in `only`, if given).
  Error group(const Layout &base, const StringSet<> *only = nullptr);
  Error showWhole();
  /// The lower bound of `l` (its recompute policy) with `m`
  /// micro-batches.
  Expected<double> lowerBound(const Layout &l, int64_t m) {
    return bound.lowerBound(l, m);
  }
  /// The `top`-th fastest prediction so far; infinity before there are
  /// `top`.
  double threshold() const;
  /// Whether `variant` cannot enter the shown rows; it is kept to be
  /// revisited if the threshold rises (showWhole may drop rows).
  Expected<bool> prune(const Layout &variant);
  /// The variants pruned so far whose bound is now below the threshold,
  /// by layout; they leave `pending`.
  std::vector<std::pair<Layout, StringSet<>>> revisit();
  void finish();
  SearchResult out;
  SmallVector<int64_t> microBatchCounts;

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
  /// Ranks `l` if it fits; false if it does not.
  Expected<bool> rank(const Layout &l, const CompileResult &r);
  Expected<bool> evaluate(const Layout &l);
  /// Compiles `base`'s leanest variants; true if none fits (and the
  /// group is done).
  Expected<bool> leanFirst(const Layout &base, ArrayRef<int64_t> counts);
  /// The diagnostic of one of `l`'s axes alone where the compiler rejected
  /// it: (tp, SP, cp, attention) from the bound's compiles, dp (with l's
  /// batch) and pp from the probes `probe` made.
  Expected<std::string> knownRejection(const Layout &l);
  /// After the compiler rejected `l`: its dp and its pp alone compiled
  /// (once each), so that later layouts with a degree the compiler
  /// rejects on its own are rejected without a compile.
  Error probe(const Layout &l);
  /// Records an assumption of the pruning found false.
  void violation(const std::string &what) {
    if (!out.boundViolations++)
      out.firstViolation = what;
  }
  /// Compiles `l` (counted against --max-compiles), or rejects it by a
  /// known rejection of one of its axes; nullopt when capped.
  Expected<std::optional<CompileResult>> compile(const Layout &l);

  CandidateCompiler &compiler;
  const Cluster &cluster;
  const SearchOptions &o;
  StepBound bound;
  SmallVector<const char *, 3> policies;
  /// Set aside: variants whose bound reached the shown rows, and those a
  /// row ranked from composed figures dominates (its whole compile may
  /// drop it).
  struct Pending {
    Layout layout;
    double bound;
    /// The row that dominates it, if any: it is searched again only if
    /// that row leaves.
    std::string dominator;
  };
  std::vector<Pending> pending;
  void setAside(const Layout &l, double bound, std::string dominator = "") {
    pending.push_back(Pending{l, bound, std::move(dominator)});
  }
  /// Set by rank: the layout ranked was composed, and its name.
  bool rankedComposed = false;
  std::string rankedName;
  /// (axis, degree, batch) -> the compiler's diagnostic, empty if it
  /// compiled.
  std::map<std::tuple<std::string, int64_t, int64_t>, std::string> probes;
  /// Set by evaluate when the compiler (not memory) rejected the layout.
  bool compilerRejected = false;
  /// The group's leanest variants, compiled before the others, by name.
  std::map<std::string, CompileResult> lean;
  /// Set by rank when the layout did not fit.
  bool tooBig = false;
  /// Set by evaluate when the layout's prediction was no faster than the
  /// shown rows, with that prediction.
  bool slowerThanShown = false;
  double slowStep = 0;
  /// The predicted step of `l` from its compile.
  double predictStep(const Layout &l, const CompileResult &r) const {
    return predict(r.stages, r.mesh, cluster, o.peakFlops, o.calibration,
                   o.fuseChunks, l.microBatches, o.globalBatch * o.seqLen)
        .stepSeconds;
  }
};
} // namespace

Expected<bool> Search::rank(const Layout &l, const CompileResult &r) {
  tooBig = r.peakTotal() > cluster.memoryBytes;
  if (tooBig) {
    // One group for every layout that does not fit, each named with how
    // much it misses by.
    out.rejected[noFit()].push_back(miss(l, r));
    return false;
  }
  Prediction p =
      predict(r.stages, r.mesh, cluster, o.peakFlops, o.calibration,
              o.fuseChunks, l.microBatches, o.globalBatch * o.seqLen);
  // Every prediction is checked against its bound: the pruning is only as
  // good as Bound.h's assumptions.
  Expected<double> lb = lowerBound(l, l.microBatches);
  if (!lb)
    return lb.takeError();
  if (*lb > p.stepSeconds * (1 + 1e-9))
    violation(formatv("{0}: bound {1:E} s above the predicted {2:E} s",
                      l.name(), *lb, p.stepSeconds)
                  .str());
  rankedComposed = r.composed;
  rankedName = l.name();
  out.ranked.push_back(Ranked{l, p, json::Object(r.peak()), r.stagePeakTotals(),
                              r.composed, *lb});
  return true;
}

double Search::threshold() const {
  if (out.ranked.size() < o.top || !o.top)
    return std::numeric_limits<double>::infinity();
  std::vector<double> times;
  for (const Ranked &r : out.ranked)
    times.push_back(r.prediction.stepSeconds);
  std::nth_element(times.begin(), times.begin() + (o.top - 1), times.end());
  return times[o.top - 1];
}

Expected<bool> Search::prune(const Layout &variant) {
  if (!o.bound)
    return false;
  Expected<double> lb = lowerBound(variant, variant.microBatches);
  if (!lb)
    return lb.takeError();
  if (*lb < threshold())
    return false;
  setAside(variant, *lb);
  return true;
}

std::vector<std::pair<Layout, StringSet<>>> Search::revisit() {
  std::vector<std::pair<Layout, StringSet<>>> again;
  std::map<std::string, size_t> index;
  double t = threshold();
  StringSet<> rows;
  for (const Ranked &r : out.ranked)
    rows.insert(r.layout.name());
  std::vector<Pending> still;
  for (Pending &p : pending) {
    const Layout &l = p.layout;
    if (p.bound >= t || (!p.dominator.empty() && rows.contains(p.dominator))) {
      still.push_back(p);
      continue;
    }
    Layout base = l;
    base.recompute = "none";
    base.microBatches = 1;
    auto [it, inserted] = index.emplace(base.name(), again.size());
    if (inserted)
      again.emplace_back(base, StringSet<>());
    again[it->second].second.insert(l.name());
  }
  pending = std::move(still);
  return again;
}

void Search::finish() {
  out.bounded = llvm::count_if(
      pending, [](const Pending &p) { return p.dominator.empty(); });
  out.boundCompiles = bound.compiles;
  out.unbounded = bound.unbounded;
}

Expected<std::string> Search::knownRejection(const Layout &l) {
  Expected<std::string> r = bound.rejection(l);
  if (!r || !r->empty())
    return r;
  auto dp = probes.find({"dp", l.dp, o.globalBatch / l.microBatches});
  if (dp != probes.end() && !dp->second.empty())
    return dp->second;
  auto pp = probes.find({"pp", l.pp, 0});
  if (pp != probes.end() && !pp->second.empty())
    return pp->second;
  return std::string();
}

Error Search::probe(const Layout &l) {
  int64_t batch = o.globalBatch / l.microBatches;
  auto once = [&](std::tuple<std::string, int64_t, int64_t> key,
                  const Layout &alone, int64_t layers) -> Expected<bool> {
    if (auto it = probes.find(key); it != probes.end())
      return !it->second.empty();
    ++out.probeCompiles;
    Expected<CompileResult> r =
        compiler.compileAt(alone, o.seqLen, batch, layers);
    if (!r)
      return r.takeError();
    return !(probes[key] = r->rejection).empty();
  };
  if (l.dp > 1) {
    Layout alone;
    alone.dp = l.dp;
    Expected<bool> rejected = once({"dp", l.dp, batch}, alone, 1);
    if (!rejected || *rejected)
      return rejected.takeError();
  }
  // One layer per stage, or the model's layers when there are fewer.
  if (l.pp > 1 && o.layers) {
    Layout alone;
    alone.pp = l.pp;
    Expected<bool> rejected =
        once({"pp", l.pp, 0}, alone, std::min(l.pp, o.layers));
    if (!rejected)
      return rejected.takeError();
  }
  return Error::success();
}

Expected<std::optional<CompileResult>> Search::compile(const Layout &l) {
  if (auto it = lean.find(l.name()); it != lean.end())
    return std::move(it->second);
  Expected<std::string> known = knownRejection(l);
  if (!known)
    return known.takeError();
  if (o.bound && !known->empty()) {
    ++out.probeRejected;
    CompileResult r;
    r.rejection = std::move(*known);
    return r;
  }
  if (out.compiled >= o.maxCompiles) {
    ++out.capped;
    return std::nullopt;
  }
  ++out.compiled;
  // Whether a composed peak just above the memory fits matters only to a
  // layout that could be shown (one just below is ranked from its composed
  // figures, and compiled whole if it is shown).
  auto needWhole = [&](const CompileResult &c) {
    return !o.bound || (c.peakTotal() > cluster.memoryBytes &&
                        predictStep(l, c) < threshold());
  };
  Expected<CompileResult> r =
      compiler.compile(l, o.seqLen, o.globalBatch / l.microBatches, needWhole);
  if (!r)
    return r.takeError();
  if (r->rejection.empty() && !known->empty())
    violation(l.name() + ": compiled, but its " + *known);
  if (!r->rejection.empty())
    if (Error e = probe(l))
      return std::move(e);
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
  // Fitting or not, a layout at least as slow as the shown rows ends the
  // search of the slower variants after it (Search::group).
  double step = predictStep(l, **r);
  slowerThanShown = o.bound && step >= threshold();
  slowStep = step;
  // Near the memory, above it and slower than the shown rows: not compiled
  // whole (one below it is ranked from its composed figures).
  if ((*r)->fitUndecided && (*r)->peakTotal() > cluster.memoryBytes) {
    setAside(l, step);
    return false;
  }
  return rank(l, **r);
}

Expected<bool> Search::leanFirst(const Layout &base, ArrayRef<int64_t> counts) {
  lean.clear();
  if (!o.leanFirst)
    return false;
  // Memory's leanest variants: the last policy (full recompute, unless
  // --recompute fixes it), with the most micro-batches the compiler
  // accepts and with one. Full recompute keeps the least; a micro-batch
  // loop adds a gradient accumulator once, after which more micro-batches
  // only shrink the activations (docs/planner.md). If neither fits, no
  // variant does.
  std::string why;
  std::vector<Layout> rejectedLean;
  // Compiles (full recompute, m): nullopt to go on, else the answer.
  auto leanest = [&](int64_t m) -> Expected<std::optional<bool>> {
    Layout l = base;
    l.recompute = policies.back();
    l.microBatches = m;
    Expected<std::optional<CompileResult>> r = compile(l);
    if (!r)
      return r.takeError();
    if (!*r)
      return std::optional<bool>(false);
    bool rejected = !(*r)->rejection.empty();
    // Just above the memory and not compiled whole: it may fit, and the
    // rule needs a variant that does not.
    bool fits = !rejected && ((*r)->peakTotal() <= cluster.memoryBytes ||
                              (*r)->fitUndecided);
    if (rejected)
      rejectedLean.push_back(l);
    else if (!fits)
      why += (why.empty() ? "" : "; ") + miss(l, **r);
    lean.emplace(l.name(), std::move(**r));
    if (fits)
      return std::optional<bool>(false);
    return rejected ? std::nullopt : std::optional<bool>(true);
  };
  for (int64_t m : llvm::reverse(counts)) {
    if (m == 1 || o.globalBatch % m)
      continue;
    Expected<std::optional<bool>> r = leanest(m);
    if (!r)
      return r.takeError();
    if (*r && !**r)
      return false;
    if (*r)
      break;
  }
  if (llvm::is_contained(counts, 1)) {
    Expected<std::optional<bool>> r = leanest(1);
    if (!r)
      return r.takeError();
    if (*r && !**r)
      return false;
  }
  // Only compiler rejections: the search records them.
  if (why.empty())
    return false;
  for (const Layout &l : rejectedLean)
    reject(lean[l.name()].rejection, l);
  ++out.leanRejected;
  out.rejected[noFit() + ", even with full recompute and 1 or the most "
                         "micro-batches (nothing else of the layout "
                         "compiled)"]
      .push_back(why);
  return true;
}

Error Search::group(const Layout &base, const StringSet<> *only) {
  auto variant = [&](const char *policy, int64_t m) {
    Layout l = base;
    l.recompute = policy;
    l.microBatches = m;
    return l;
  };
  // The micro-batch counts the bound leaves (with one stage they share a
  // bound: there is no bubble); a count's variants are kept with the bound
  // without recompute, the smallest.
  SmallVector<int64_t> counts;
  for (int64_t m : microBatchCounts) {
    Layout l = variant("none", m);
    Expected<bool> pruned = prune(l);
    if (!pruned)
      return pruned.takeError();
    if (!*pruned) {
      counts.push_back(m);
      continue;
    }
    double lb = pending.back().bound;
    pending.pop_back();
    for (const char *policy : policies)
      if (!only || only->contains(variant(policy, m).name()))
        setAside(variant(policy, m), lb);
  }
  if (counts.empty())
    return Error::success();
  // A revisit of every variant is a layout searched afresh.
  if (only && only->size() == policies.size() * microBatchCounts.size())
    only = nullptr;
  size_t tried = 0, total = policies.size() * counts.size();
  if (only) {
    // A revisit: only the variants named are tried, the others were.
    total = 0;
  } else if (Expected<bool> pruned = leanFirst(base, counts)) {
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
    tooBig = false;
    slowerThanShown = false;
    rankedComposed = false;
    Layout l = variant(policy, m);
    ++tried;
    if (only && !only->contains(l.name()))
      return Error::success();
    // Its own bound: recompute adds work.
    Expected<bool> pruned = prune(l);
    if (!pruned)
      return pruned.takeError();
    if (*pruned)
      return Error::success();
    Expected<bool> fits = evaluate(l);
    if (!fits)
      return fits.takeError();
    done = *fits;
    return Error::success();
  };
  // The variants after (policy, m) in the order tried without a pipeline.
  auto laterVariants = [&](const char *policy, int64_t m,
                           llvm::function_ref<void(const Layout &)> fn) {
    bool after = false;
    for (const char *p : policies)
      for (int64_t c : counts) {
        Layout l = variant(p, c);
        if (after && (!only || only->contains(l.name())))
          fn(l);
        after |= p == policy && c == m;
      }
  };
  if (base.pp == 1) {
    // A recompute policy changes no split: a layout and M the compiler
    // rejected without recompute are not compiled again.
    SmallVector<int64_t> rejectedM;
    for (const char *policy : policies) {
      for (int64_t m : counts) {
        if (llvm::is_contained(rejectedM, m)) {
          ++tried;
          ++out.skipped;
          continue;
        }
        if (Error e = tryOne(policy, m))
          return e;
        if (compilerRejected)
          rejectedM.push_back(m);
        if (slowerThanShown && !done) {
          // The variants after it are no faster: kept with its step as
          // their bound.
          laterVariants(policy, m, [&](const Layout &l) {
            setAside(l, slowStep);
            ++tried;
          });
          done = true;
        } else if (done && rankedComposed && o.bound) {
          // Dominated by a row whose whole compile may still drop it.
          laterVariants(policy, m, [&](const Layout &l) {
            setAside(l, slowStep, rankedName);
          });
        }
        if (done)
          break;
      }
      if (done)
        break;
    }
  } else {
    // Most micro-batches first. Above one, fewer micro-batches only hold
    // more activations (the leanest variants' rule, with --lean-first): a
    // policy that does not fit with M does not with fewer but one.
    size_t firstPolicy = 0;
    for (int64_t m : llvm::reverse(counts)) {
      size_t first = m > 1 && o.leanFirst ? firstPolicy : 0;
      for (size_t k = 0; k < first; ++k) {
        ++tried;
        if (only && !only->contains(variant(policies[k], m).name()))
          continue;
        out.rejected[noFit() + " (with more micro-batches it did not; not "
                               "compiled)"]
            .push_back(variant(policies[k], m).name());
      }
      for (size_t k = first; k < policies.size(); ++k) {
        if (Error e = tryOne(policies[k], m))
          return e;
        if (compilerRejected && k == first) {
          tried += policies.size() - 1 - k;
          out.skipped += int64_t(policies.size() - 1 - k);
          break;
        }
        if (tooBig && m > 1)
          firstPolicy = std::max(firstPolicy, k + 1);
        if (slowerThanShown && !done) {
          // More recompute is no faster: kept with its step as their bound.
          for (size_t j = k + 1; j < policies.size(); ++j) {
            Layout l = variant(policies[j], m);
            ++tried;
            if (!only || only->contains(l.name()))
              setAside(l, slowStep);
          }
          break;
        }
        if (done) {
          // Dominated by a row whose whole compile may still drop it.
          for (size_t j = k + 1;
               rankedComposed && o.bound && j < policies.size(); ++j)
            if (!only || only->contains(variant(policies[j], m).name()))
              setAside(variant(policies[j], m), slowStep, rankedName);
          done = false;
          break;
        }
      }
    }
  }
  if (total)
    out.dominated += int64_t(total - tried);
  return Error::success();
}

Error Search::showWhole() {
  auto byStepTime = [](const Ranked &a, const Ranked &b) {
    return a.prediction.stepSeconds < b.prediction.stepSeconds;
  };
  std::vector<Ranked> &ranked = out.ranked;
  llvm::stable_sort(ranked, byStepTime);
  // The rows shown are compiled whole: their figures are the compiler's,
  // two at a time. A row whose whole compile does not fit leaves, so each
  // scan starts again from the top (a whole compile changes no step time:
  // composition gives the FLOPs and bytes exactly).
  auto batch = [&](const Layout &l) { return o.globalBatch / l.microBatches; };
  while (true) {
    size_t shown = std::min(o.top, ranked.size());
    SmallVector<Layout, 2> layouts;
    for (size_t i = 0; i < shown && layouts.size() < 2; ++i)
      if (ranked[i].composed)
        layouts.push_back(ranked[i].layout);
    if (layouts.empty())
      break;
    llvm::erase_if(ranked, [&](const Ranked &r) {
      return r.composed && llvm::any_of(layouts, [&](const Layout &l) {
               return l.name() == r.layout.name();
             });
    });
    std::optional<Expected<CompileResult>> whole[2];
    if (layouts.size() == 2) {
      auto pair =
          compiler.compileFullPair(layouts[0], batch(layouts[0]), layouts[1],
                                   batch(layouts[1]), o.seqLen);
      whole[0].emplace(std::move(pair.first));
      whole[1].emplace(std::move(pair.second));
    } else {
      whole[0].emplace(
          compiler.compileFull(layouts[0], o.seqLen, batch(layouts[0])));
    }
    for (size_t k = 0; k < layouts.size(); ++k) {
      Expected<CompileResult> &r = *whole[k];
      if (!r) {
        if (k + 1 < layouts.size())
          consumeError(whole[k + 1]->takeError());
        return r.takeError();
      }
      if (!r->rejection.empty()) {
        reject(r->rejection, layouts[k]);
        continue;
      }
      Expected<bool> fits = rank(layouts[k], *r);
      if (!fits) {
        if (k + 1 < layouts.size())
          consumeError(whole[k + 1]->takeError());
        return fits.takeError();
      }
    }
    llvm::stable_sort(ranked, byStepTime);
  }
  return Error::success();
}

Expected<SearchResult> seqpar::plan::searchLayouts(CandidateCompiler &compiler,
                                                   const Cluster &cluster,
                                                   const SearchOptions &o) {
  Search search(compiler, cluster, o);
  int64_t gpus = cluster.gpus();
  // Every layout with its lower bound (at its most micro-batches, the
  // smallest bubble), searched fastest bound first so that the shown rows
  // fill early and the bound prunes the most.
  std::vector<std::pair<Layout, double>> layouts;
  int64_t most = 0;
  for (int64_t m : search.microBatchCounts)
    if (o.globalBatch % m == 0)
      most = m;
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
            double lb = 0;
            if (o.bound && most) {
              Expected<double> b = search.lowerBound(base, most);
              if (!b)
                return b.takeError();
              lb = *b;
            }
            layouts.emplace_back(base, lb);
          }
        }
  llvm::stable_sort(layouts,
                    [](auto &a, auto &b) { return a.second < b.second; });
  for (const auto &[base, lb] : layouts)
    if (Error e = search.group(base))
      return std::move(e);
  if (Error e = search.showWhole())
    return std::move(e);
  // Rows dropped by their whole compile raise the bar: what the bound
  // pruned below the new one is searched after all.
  for (auto again = search.revisit(); !again.empty();
       again = search.revisit()) {
    for (const auto &[base, variants] : again)
      if (Error e = search.group(base, &variants))
        return std::move(e);
    if (Error e = search.showWhole())
      return std::move(e);
  }
  search.finish();
  return std::move(search.out);
}

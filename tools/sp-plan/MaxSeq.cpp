//===- MaxSeq.cpp - the longest sequence any layout trains ---------------===//

#include "MaxSeq.h"

using namespace llvm;
using namespace seqpar::plan;

std::vector<Layout> seqpar::plan::leanLayouts(int64_t gpus, int64_t globalBatch,
                                              int64_t maxMicroBatches) {
  std::vector<Layout> layouts;
  for (int64_t tp = 1; tp <= gpus; ++tp)
    for (int64_t cp = 1; gpus % tp == 0 && cp <= gpus / tp; ++cp)
      for (int64_t pp = 1; (gpus / tp) % cp == 0 && pp <= gpus / tp / cp;
           ++pp) {
        if ((gpus / tp / cp) % pp)
          continue;
        Layout l;
        l.tp = tp;
        l.cp = cp;
        l.pp = pp;
        l.dp = gpus / tp / cp / pp;
        l.sp = tp > 1;
        l.zero = l.dp * cp > 1;
        l.recompute = "full";
        // One micro-batch (no accumulator) and the most (the least
        // activations): either may keep less.
        SmallVector<int64_t, 2> counts;
        for (int64_t m = 1; m <= maxMicroBatches; m *= 2)
          if (globalBatch % m == 0 && (globalBatch / m) % l.dp == 0)
            counts.assign({m});
        if (counts.empty())
          continue;
        if (counts[0] > 1 && globalBatch % l.dp == 0)
          counts.push_back(1);
        for (int64_t m : counts)
          for (const char *attention : {"allgather", "ring"}) {
            if (cp == 1 && StringRef(attention) == "ring")
              continue;
            l.microBatches = m;
            l.cpAttention = attention;
            layouts.push_back(l);
          }
      }
  return layouts;
}

namespace {
enum class Outcome { fits, tooBig, rejected, beyondModel };

/// The search's state: the compiles, the bound the model sets, the
/// rejections.
struct Search {
  int64_t block, limit, memoryBytes;
  SeqCompiler compile;
  MaxSeqResult &out;

  /// Compiles `l` at `seq`; `fit` receives it when it was compiled.
  Outcome test(const Layout &l, int64_t seq, SeqFit &fit) {
    if (seq > limit)
      return Outcome::beyondModel;
    Expected<CompileResult> r = compile(l, seq);
    if (!r) {
      // The model refuses this length: no longer one is searched.
      limit = seq - block;
      out.modelLimit = toString(r.takeError());
      return Outcome::beyondModel;
    }
    ++out.compiled;
    fit = SeqFit{l, seq, 0, std::move(*r)};
    if (!fit.result.rejection.empty())
      return Outcome::rejected;
    fit.total = fit.result.peakTotal();
    return fit.total <= memoryBytes ? Outcome::fits : Outcome::tooBig;
  }

  /// The longest multiple of `block` that `l` fits, searched from `from`
  /// (0 when it does not fit there); `best` receives its compile.
  int64_t longest(const Layout &l, int64_t from, SeqFit &best) {
    SeqFit fit;
    Outcome o = test(l, from, fit);
    if (o == Outcome::rejected)
      out.rejected[fit.result.rejection].push_back(l.name() + " at seq " +
                                                   std::to_string(from));
    if (o != Outcome::fits)
      return 0;
    best = std::move(fit);
    // Doubling steps up, then halving between the last fit and the miss.
    int64_t lo = from, hi = 0;
    for (int64_t step = block; !hi; step *= 2) {
      if (test(l, lo + step, fit) == Outcome::fits) {
        lo += step;
        best = std::move(fit);
      } else {
        hi = lo + step;
      }
    }
    while (hi - lo > block) {
      int64_t mid = lo + (hi - lo) / block / 2 * block;
      if (test(l, mid, fit) == Outcome::fits) {
        lo = mid;
        best = std::move(fit);
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};
} // namespace

MaxSeqResult seqpar::plan::findMaxSeq(ArrayRef<Layout> layouts, int64_t block,
                                      int64_t limit, int64_t memoryBytes,
                                      SeqCompiler compile) {
  MaxSeqResult out;
  Search search{block, limit / block * block, memoryBytes, compile, out};
  // Each layout is first tried at the longest sequence found so far: one
  // compile rules out a layout that does not reach it.
  for (const Layout &l : layouts) {
    SeqFit fit;
    int64_t seq = search.longest(l, out.seq ? out.seq : block, fit);
    if (!seq || seq < out.seq)
      continue;
    if (seq > out.seq)
      out.fits.clear();
    out.seq = seq;
    out.fits.push_back(std::move(fit));
  }
  if (!out.seq || out.seq + block > search.limit)
    return out;
  // One block up, every layout compiled: none may fit.
  out.next = out.seq + block;
  for (const Layout &l : layouts) {
    SeqFit fit;
    Outcome o = search.test(l, out.next, fit);
    if (o == Outcome::beyondModel)
      break;
    ++out.nextCompiled;
    if (o == Outcome::fits)
      out.nextFits.push_back(l.name());
    else if (o == Outcome::rejected)
      ++out.nextRejected;
    else if (!out.closest || fit.total < out.closest->total)
      out.closest = std::move(fit);
  }
  return out;
}

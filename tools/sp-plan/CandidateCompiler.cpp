//===- CandidateCompiler.cpp - candidates compiled or composed -----------===//

#include "CandidateCompiler.h"
#include "Compose.h"

#include "seqpar/Import/HFImport.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <optional>
#include <thread>

using namespace llvm;
using namespace seqpar;
using namespace seqpar::plan;
namespace json = llvm::json;

Expected<CompileResult> CandidateCompiler::compileOn(size_t worker,
                                                     const Job &job) {
  if (worker == 0) {
    ++compiles;
    layersCompiled += job.modelLayers;
  }
  auto &cache = models[worker];
  auto key = std::make_tuple(job.seq, job.batch, job.modelLayers);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::string text = options.config;
    if (job.modelLayers != layers) {
      Expected<std::string> shallow = withLayerCount(text, job.modelLayers);
      if (!shallow)
        return shallow.takeError();
      text = std::move(*shallow);
    }
    HFImportOptions importOptions;
    importOptions.seqLen = job.seq;
    importOptions.batch = job.batch;
    importOptions.source = options.source;
    auto m = importHFConfig(text, importOptions, contexts[worker]);
    if (!m)
      return m.takeError();
    it = cache.emplace(key, std::move(*m)).first;
  }
  return compileCandidate(*it->second, job.layout, options.precision,
                          options.fuseChunks);
}

std::pair<Expected<CompileResult>, Expected<CompileResult>>
CandidateCompiler::compilePair(const Job &a, const Job &b) {
  if (contexts.size() < 2)
    return {compileOn(0, a), compileOn(0, b)};
  ++compiles;
  layersCompiled += b.modelLayers;
  std::optional<Expected<CompileResult>> second;
  std::thread other([&] { second.emplace(compileOn(1, b)); });
  Expected<CompileResult> first = compileOn(0, a);
  other.join();
  return {std::move(first), std::move(*second)};
}

Expected<CompileResult> CandidateCompiler::compileFull(const Layout &layout,
                                                       int64_t seq,
                                                       int64_t batch) {
  ++fullCount;
  return compileAt(layout, seq, batch, layers);
}

/// Each stage's per_rank_peak_bytes (the top level when there is one).
static std::vector<const json::Object *> stagePeaks(const json::Object &m) {
  std::vector<const json::Object *> peaks;
  if (const json::Array *stages = m.getArray("stages"))
    for (const json::Value &s : *stages)
      peaks.push_back(s.getAsObject()->getObject("per_rank_peak_bytes"));
  else
    peaks.push_back(m.getObject("per_rank_peak_bytes"));
  return peaks;
}

Expected<CompileResult> CandidateCompiler::compile(
    const Layout &layout, int64_t seq, int64_t batch,
    const std::function<bool(const CompileResult &)> &needWhole) {
  int64_t k = options.composeLayers, pp = layout.pp;
  int64_t perStage = pp > 0 && layers % pp == 0 ? layers / pp : 0;
  // Two shallow compiles, each shallower than the model.
  if (!k || perStage < k + 2)
    return compileFull(layout, seq, batch);
  CompileResult shallow[2];
  auto pair = compilePair({layout, seq, batch, k * pp},
                          {layout, seq, batch, (k + 1) * pp});
  Expected<CompileResult> *both[2] = {&pair.first, &pair.second};
  for (int64_t i = 0; i < 2; ++i) {
    Expected<CompileResult> &r = *both[i];
    // Leaving early, the deeper compile is not needed.
    auto dropDeeper = [&] {
      if (i == 0)
        consumeError(pair.second.takeError());
    };
    // The model refuses this length or batch: the whole model's import
    // gives the error.
    if (!r) {
      consumeError(r.takeError());
      dropDeeper();
      return compileFull(layout, seq, batch);
    }
    // The compiler's diagnostic for this layout, from a shallow model: the
    // splits it checks do not depend on the depth.
    if (!r->rejection.empty()) {
      dropDeeper();
      ++shallowRejected;
      if (options.check) {
        Expected<CompileResult> whole = compileAt(layout, seq, batch, layers);
        if (!whole)
          return whole.takeError();
        check(layout, *r, *whole);
      }
      return std::move(r);
    }
    shallow[i] = std::move(*r);
  }
  CompileResult r = compose(shallow[0], shallow[1], perStage - k - 1);
  if (std::abs(double(r.peakTotal() - options.memoryBytes)) <=
      options.margin * double(options.memoryBytes)) {
    if (!needWhole || needWhole(r)) {
      ++nearLimitCount;
      return compileFull(layout, seq, batch);
    }
    r.fitUndecided = true;
  }
  r.composed = true;
  ++composedCount;
  if (options.check) {
    Expected<CompileResult> whole = compileAt(layout, seq, batch, layers);
    if (!whole)
      return whole.takeError();
    check(layout, r, *whole);
  }
  return r;
}

void CandidateCompiler::check(const Layout &layout,
                              const CompileResult &composed,
                              const CompileResult &whole) {
  ++checks.checked;
  bool equal = true;
  auto differ = [&](double fraction, const Twine &what, int64_t a, int64_t b) {
    equal = false;
    auto &e = checks.examples;
    e.emplace_back(fraction, (layout.name() + ": " + what + " " + Twine(a) +
                              " vs " + Twine(b))
                                 .str());
    llvm::stable_sort(e, [](auto &x, auto &y) { return x.first > y.first; });
    if (e.size() > 8)
      e.pop_back();
  };
  if (!composed.rejection.empty() || !whole.rejection.empty()) {
    // A shallow rejection must be the whole model's too.
    if (composed.rejection.empty() || whole.rejection.empty()) {
      ++checks.mismatches;
      differ(1,
             "rejected only by the " +
                 Twine(whole.rejection.empty() ? "shallow" : "whole") +
                 " compile: " + composed.rejection + whole.rejection,
             0, 0);
    } else {
      checks.equal += 1;
    }
    return;
  }
  std::vector<const json::Object *> a = stagePeaks(composed.memory),
                                    b = stagePeaks(whole.memory);
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    int64_t x = *a[i]->getInteger("total"), y = *b[i]->getInteger("total");
    if (x == y)
      continue;
    double fraction = double(std::abs(x - y)) / double(y);
    ++(x < y ? checks.under : checks.over);
    double &worst = x < y ? checks.maxUnder : checks.maxOver;
    worst = std::max(worst, fraction);
    differ(fraction, "stage " + Twine(i) + " total", x, y);
  }
  auto mismatch = [&](const Twine &what, int64_t a, int64_t b) {
    if (a == b)
      return;
    ++checks.mismatches;
    differ(1, what, a, b);
  };
  for (size_t i = 0; i < composed.stages.size(); ++i) {
    const StageFacts &x = composed.stages[i], &y = whole.stages[i];
    mismatch("stage " + Twine(i) + " FLOPs", x.gemmFlops + x.attentionFlops,
             y.gemmFlops + y.attentionFlops);
    mismatch("stage " + Twine(i) + " memory-bound bytes",
             totalMemoryBoundBytes(x), totalMemoryBoundBytes(y));
    mismatch("stage " + Twine(i) + " attention score bytes",
             x.attentionScoreBytes, y.attentionScoreBytes);
    for (const auto &entry : y.traffic) {
      AxisTraffic t = x.traffic.lookup(entry.getKey());
      const AxisTraffic &u = entry.getValue();
      mismatch("stage " + Twine(i) + " bytes on " + entry.getKey(),
               t.exposedBytes + t.fusedBytes + t.asyncBytes,
               u.exposedBytes + u.fusedBytes + u.asyncBytes);
    }
  }
  checks.equal += equal;
}

void CandidateCompiler::keepOnly(int64_t seq) {
  for (auto &cache : models)
    for (auto it = cache.begin(); it != cache.end();)
      it = std::get<0>(it->first) == seq ? std::next(it) : cache.erase(it);
}

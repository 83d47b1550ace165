//===- sp-plan.cpp - the fastest layout that provably fits ----------------===//
//
//   sp-plan --hf-config config.json --seq-len S --global-batch G
//           --cluster cluster.json [--precision bf16|fp16|fp32]
//           [--calibration FILE] [--top N] [--max-compiles N]
//           [--max-micro-batches N | --micro-batches A,B,...]
//           [--tp N] [--cp N] [--pp N] [--recompute POLICY]
//           [--fuse-chunks N] [--compose-layers K] [--json]
//   sp-plan --hf-config config.json --max-seq [--seq-block B] ...
//   sp-plan --calibrate DIR [--ranks R] [--launcher "mpirun ..."]
//
// Enumerates the layouts of the cluster's GPUs (tp, SP, cp, pp, dp, ZeRO,
// recompute, micro-batches), compiles each with the real pipeline up to
// sp-plan-buffers (Candidate.h; deep models composed from shallow compiles,
// CandidateCompiler.h), rejects those the compiler rejects (its diagnostic
// is the reason) and those whose planned per-rank peak exceeds the GPU's
// memory, predicts the step time of the rest (CostModel.h) and prints them
// ranked (Search.h), the rejections grouped by reason and the winner's
// sp-import / sp-compile command lines. --max-seq finds the longest
// sequence some layout trains instead (MaxSeq.h); --calibrate measures this
// machine's CPU ranks and writes the cluster and calibration files
// (Calibrate.h). docs/planner.md has the model.
//
//===----------------------------------------------------------------------===//

#include "Calibrate.h"
#include "Candidate.h"
#include "CandidateCompiler.h"
#include "Cluster.h"
#include "Compose.h"
#include "CostModel.h"
#include "MaxSeq.h"
#include "Search.h"

#include "seqpar/Dialect/Common/SeqparChoices.h"
#include "seqpar/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

using namespace llvm;
using namespace seqpar::plan;
namespace json = llvm::json;

static cl::OptionCategory planning("Planning");
static cl::opt<std::string> hfConfig("hf-config",
                                     cl::desc("Hugging Face config.json"),
                                     cl::value_desc("file"), cl::cat(planning));
static cl::opt<int64_t> seqLen("seq-len",
                               cl::desc("Sequence length (not with --max-seq)"),
                               cl::cat(planning));
static cl::opt<bool>
    maxSeq("max-seq",
           cl::desc("Find the longest sequence some layout trains instead "
                    "of the fastest layout at --seq-len"),
           cl::cat(planning));
static cl::opt<int64_t>
    seqBlock("seq-block",
             cl::desc("With --max-seq: sequence lengths tried are multiples "
                      "of this (default 1024)"),
             cl::init(1024), cl::cat(planning));
static cl::opt<int64_t>
    maxSeqLimit("max-seq-limit",
                cl::desc("With --max-seq: the longest sequence tried "
                         "(default 16777216)"),
                cl::init(int64_t(1) << 24), cl::cat(planning));
static cl::opt<int64_t> globalBatch("global-batch",
                                    cl::desc("Sequences per step"),
                                    cl::cat(planning));
static cl::opt<std::string> clusterFile(
    "cluster",
    cl::desc("Cluster description JSON (examples/clusters); with "
             "--calibrate, the cluster the measured device belongs to: "
             "written back with the measured figures in their place"),
    cl::value_desc("file"), cl::cat(planning));
static cl::opt<std::string>
    precision("precision", cl::desc("bf16, fp16 or fp32 (default bf16)"),
              cl::init("bf16"), cl::cat(planning));
static cl::opt<std::string>
    calibrationFile("calibration",
                    cl::desc("Efficiencies per op class, JSON (default: "
                             "docs/planner.md's)"),
                    cl::value_desc("file"), cl::cat(planning));
static cl::opt<unsigned> top("top", cl::desc("Layouts shown (default 10)"),
                             cl::init(10), cl::cat(planning));
static cl::opt<unsigned>
    maxCompiles("max-compiles",
                cl::desc("Compile at most this many candidates (default "
                         "1000)"),
                cl::init(1000), cl::cat(planning));
static cl::opt<int64_t>
    maxMicroBatches("max-micro-batches",
                    cl::desc("Micro-batch counts tried: powers of two up to "
                             "this (default 16)"),
                    cl::init(16), cl::cat(planning));
static cl::opt<int64_t>
    fuseChunks("fuse-chunks",
               cl::desc("sp-compile's --fuse-chunks for every candidate "
                        "(default 2)"),
               cl::init(2), cl::cat(planning));
static cl::opt<int64_t> composeLayers(
    "compose-layers",
    cl::desc("Compile each candidate with K and K + 1 layers per pipeline "
             "stage and compose the model's figures from them; 0 compiles "
             "every candidate whole (default 1)"),
    cl::init(1), cl::cat(planning));
static cl::opt<bool> checkComposition(
    "check-composition",
    cl::desc("Also compile every composed candidate whole and report how "
             "its figures compare"),
    cl::cat(planning));
static cl::opt<bool> leanFirst(
    "lean-first",
    cl::desc("Compile each layout's leanest variant (full recompute, the "
             "most micro-batches) first and skip the layout if it does not "
             "fit (default true)"),
    cl::init(true), cl::cat(planning));
static cl::opt<bool> useBound(
    "bound",
    cl::desc("Search layouts fastest lower bound first and compile no "
             "variant whose lower bound is not below the --top-th fastest "
             "prediction; false compiles every one and checks each "
             "prediction against its bound (default true)"),
    cl::init(true), cl::cat(planning));
static cl::opt<unsigned> jobs(
    "jobs",
    cl::desc("Compiles at once, 1 or 2 (default: 2 where the machine "
             "has two cores or more)"),
    cl::init(std::min(2u, std::max(1u, std::thread::hardware_concurrency()))),
    cl::cat(planning));
static cl::opt<int64_t> onlyTp("tp", cl::desc("Only layouts of this tp"),
                               cl::init(0), cl::cat(planning));
static cl::opt<int64_t> onlyCp("cp", cl::desc("Only layouts of this cp"),
                               cl::init(0), cl::cat(planning));
static cl::opt<int64_t> onlyPp("pp", cl::desc("Only layouts of this pp"),
                               cl::init(0), cl::cat(planning));
static cl::opt<std::string>
    onlyRecompute("recompute",
                  cl::desc("Only this recompute policy (none, selective, "
                           "full)"),
                  cl::cat(planning));
static cl::opt<std::string> calibrateDir(
    "calibrate",
    cl::desc("Measure this machine's rates on --ranks ranks and write "
             "DIR/cluster.json and DIR/calibration.json (no search)"),
    cl::value_desc("dir"), cl::cat(planning));
static cl::opt<std::string> calibrateBackend(
    "calibrate-backend",
    cl::desc("With --calibrate: cpu (sp-calibrate: CPU ranks) or cuda "
             "(sp-calibrate-cuda: one GPU a rank)"),
    cl::init("cpu"), cl::cat(planning));
static cl::opt<std::string> measuredFile(
    "measured",
    cl::desc("With --calibrate: fit the figures sp-calibrate wrote to FILE "
             "(e.g. on a GPU machine) instead of measuring here"),
    cl::value_desc("file"), cl::cat(planning));
static cl::opt<int64_t>
    calibrateRanks("ranks",
                   cl::desc("With --calibrate: the ranks measured at once "
                            "(default 2)"),
                   cl::init(2), cl::cat(planning));
static cl::opt<std::string> launcher(
    "launcher",
    cl::desc("With --calibrate: the command that starts ranks, before -np N "
             "(default 'mpirun --allow-run-as-root --oversubscribe')"),
    cl::init("mpirun --allow-run-as-root --oversubscribe"), cl::cat(planning));
static cl::list<int64_t>
    microBatchList("micro-batches",
                   cl::desc("The micro-batch counts tried (comma-separated; "
                            "default: powers of two up to "
                            "--max-micro-batches)"),
                   cl::CommaSeparated, cl::cat(planning));
static cl::opt<bool> jsonOutput("json", cl::desc("Print JSON"),
                                cl::cat(planning));

static int fail(const Twine &message) {
  WithColor::error(errs(), "sp-plan") << message << "\n";
  return 1;
}

static std::string readFile(StringRef path, std::string &error) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return "";
  }
  return (*buffer)->getBuffer().str();
}

/// The winner's sp-import and sp-compile command lines at `seq`.
static std::pair<std::string, std::string> commandLines(const Layout &l,
                                                        int64_t seq) {
  std::string importLine =
      formatv("sp-import --hf-config {0} --seq-len {1} --batch {2} -o "
              "model.mlir",
              hfConfig, seq, globalBatch / l.microBatches)
          .str();
  std::string compileLine = "sp-compile model.mlir " +
                            join(l.compileFlags(precision), " ") +
                            " --target cuda -o step";
  return {importLine, compileLine};
}

/// --max-seq's answer: the longest sequence, the layouts that reach it
/// ranked by predicted step time, the check one block up, the rejections.
static int printMaxSeq(MaxSeqResult &r, const Cluster &cluster, double peak,
                       const Calibration &calibration,
                       std::chrono::steady_clock::time_point start) {
  auto predictFit = [&](const SeqFit &f) {
    return predict(f.result.stages, f.result.mesh, cluster, peak, calibration,
                   fuseChunks, f.layout.microBatches, globalBatch * f.seq);
  };
  llvm::stable_sort(r.fits, [&](const SeqFit &a, const SeqFit &b) {
    return predictFit(a).stepSeconds < predictFit(b).stepSeconds;
  });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  int exitCode = !r.seq ? 2 : r.nextFits.empty() ? 0 : 3;
  if (jsonOutput) {
    json::Array fits;
    for (const SeqFit &f : r.fits) {
      Prediction p = predictFit(f);
      json::Array flags;
      for (std::string &flag : f.layout.compileFlags(precision))
        flags.push_back(flag);
      fits.push_back(
          json::Object{{"layout", f.layout.name()},
                       {"import_batch", globalBatch / f.layout.microBatches},
                       {"sp_compile_flags", std::move(flags)},
                       {"step_seconds", p.stepSeconds},
                       {"tokens_per_second", p.tokensPerSecond},
                       {"mfu", p.mfu},
                       {"per_rank_peak_bytes", json::Object(f.result.peak())}});
    }
    json::Array nextFits;
    for (const std::string &n : r.nextFits)
      nextFits.push_back(n);
    json::Object next{{"seq", r.next},
                      {"compiled", r.nextCompiled},
                      {"rejected", r.nextRejected},
                      {"fit", std::move(nextFits)}};
    if (r.closest)
      next["closest"] = json::Object{{"layout", r.closest->layout.name()},
                                     {"total", r.closest->total}};
    json::Array reasons;
    for (auto &[reason, layouts] : r.rejected)
      reasons.push_back(
          json::Object{{"reason", reason}, {"count", int64_t(layouts.size())}});
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"max_seq", r.seq},
                                   {"seq_block", int64_t(seqBlock)},
                                   {"memory_bytes", cluster.memoryBytes},
                                   {"planning_seconds", seconds},
                                   {"compiled", r.compiled},
                                   {"model_limit", r.modelLimit},
                                   {"layouts", std::move(fits)},
                                   {"next", std::move(next)},
                                   {"rejected", std::move(reasons)}}))
           << "\n";
    return exitCode;
  }
  outs() << formatv("sp-plan --max-seq: {0} on {1} ({2} x {3} GPUs, {4} "
                    "each), global batch {5}, {6}, sequence block {7}\n",
                    hfConfig, cluster.name, cluster.nodes, cluster.gpusPerNode,
                    bytesText(cluster.memoryBytes), globalBatch, precision,
                    seqBlock);
  outs() << formatv(
      "searched in {0:F2} s: {1} compiles; each layout with "
      "SP, ZeRO-1, full recompute, and 1 or the most micro-batches\n",
      seconds, r.compiled);
  if (!r.modelLimit.empty())
    outs() << "the model limits the length: " << r.modelLimit << "\n";
  if (!r.seq) {
    outs() << "\nno layout fits a sequence of " << seqBlock << "\n";
    return exitCode;
  }
  outs() << formatv("\nlongest sequence: {0} tokens, reached by {1} "
                    "layout(s)\n",
                    r.seq, r.fits.size());
  for (const SeqFit &f : r.fits) {
    Prediction p = predictFit(f);
    outs() << formatv("  {0,-36} peak {1,11}  step {2,10:F3} ms  {3,5:F1}% "
                      "MFU\n",
                      f.layout.name(), bytesText(f.total), p.stepSeconds * 1e3,
                      p.mfu * 100);
  }
  if (r.next) {
    outs() << formatv("at {0} tokens: {1} layouts compiled, {2} fit, {3} "
                      "rejected by the compiler",
                      r.next, r.nextCompiled, r.nextFits.size(),
                      r.nextRejected);
    if (r.closest)
      outs() << formatv("; closest {0} needs {1} (by {2})",
                        r.closest->layout.name(), bytesText(r.closest->total),
                        bytesText(r.closest->total - cluster.memoryBytes));
    outs() << "\n";
    if (!r.nextFits.empty())
      outs() << "error: the search missed a longer fit: "
             << join(r.nextFits, "; ") << "\n";
  }
  if (!r.rejected.empty())
    outs() << "\nrejected by the compiler:\n";
  for (auto &[reason, layouts] : r.rejected)
    outs() << formatv("  {0,4} x {1}\n         e.g. {2}\n", layouts.size(),
                      reason, join(ArrayRef(layouts).take_front(3), "; "));
  auto [importLine, compileLine] = commandLines(r.fits.front().layout, r.seq);
  outs() << "\nwinner: " << r.fits.front().layout.name() << "\n  " << importLine
         << "\n  " << compileLine << "\n";
  return exitCode;
}

/// --calibrate DIR: sp-calibrate (or sp-calibrate-cuda, next to this
/// program) on --ranks ranks, or the figures of --measured, fitted.
static int runCalibrate(const char *argv0) {
  if (calibrateRanks < 1)
    return fail("--ranks must be >= 1");
  if (calibrateBackend != "cpu" && calibrateBackend != "cuda")
    return fail("--calibrate-backend must be cpu or cuda, got '" +
                calibrateBackend + "'");
  SmallString<256> measured(calibrateDir);
  sys::path::append(measured, "measured.json");
  if (!measuredFile.empty()) {
    measured = measuredFile;
  } else {
    std::string self = sys::fs::getMainExecutable(
        argv0, reinterpret_cast<void *>(&runCalibrate));
    SmallString<256> worker(sys::path::parent_path(self));
    sys::path::append(worker, calibrateBackend == "cpu" ? "sp-calibrate"
                                                        : "sp-calibrate-cuda");
    if (!sys::fs::can_execute(worker))
      return fail("--calibrate needs " + sys::path::filename(worker) +
                  " next to sp-plan ('" + worker +
                  "' is missing: it is built " +
                  (calibrateBackend == "cpu" ? "with the CPU runtime"
                                             : "where CUDA is found") +
                  ")");
    if (std::error_code ec = sys::fs::create_directories(calibrateDir))
      return fail("cannot create '" + calibrateDir + "': " + ec.message());
    if (Error e = measure(launcher, worker, calibrateRanks, measured))
      return fail(toString(std::move(e)));
  }
  if (Error e = writeCalibration(measured, calibrateDir, clusterFile))
    return fail(toString(std::move(e)));
  outs() << "wrote " << calibrateDir << "/cluster.json and " << calibrateDir
         << "/calibration.json (figures in " << measured << ")\n";
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(planning);
  cl::ParseCommandLineOptions(
      argc, argv,
      "seqpar: the fastest layout that fits, by the compiler's own plan\n");
  auto start = std::chrono::steady_clock::now();
  if (!calibrateDir.empty())
    return runCalibrate(argv[0]);
  if (hfConfig.empty() || clusterFile.empty() ||
      !globalBatch.getNumOccurrences())
    return fail("--hf-config, --cluster and --global-batch are required "
                "(or --calibrate DIR)");
  if (maxSeq && seqLen.getNumOccurrences())
    return fail("--seq-len and --max-seq exclude each other: --max-seq "
                "searches the sequence length");
  if (!maxSeq && seqLen < 1)
    return fail("--seq-len must be >= 1 (or give --max-seq)");
  if (maxSeq && (seqBlock < 1 || maxSeqLimit < seqBlock))
    return fail("--seq-block must be >= 1 and --max-seq-limit >= it");
  if (globalBatch < 1)
    return fail("--global-batch must be >= 1");
  if (precision != "bf16" && precision != "fp16" && precision != "fp32")
    return fail("--precision must be bf16, fp16 or fp32, got '" + precision +
                "'");
  if (onlyTp < 0 || onlyCp < 0 || onlyPp < 0)
    return fail("--tp, --cp and --pp must be >= 1");
  if (jobs < 1 || jobs > 2)
    return fail("--jobs must be 1 or 2, got " + Twine(jobs.getValue()));
  if (!onlyRecompute.empty() &&
      !seqpar::symbolizeRecomputePolicy(onlyRecompute))
    return fail("--recompute must be none, selective or full, got '" +
                onlyRecompute + "'");
  for (int64_t m : microBatchList)
    if (m < 1)
      return fail("--micro-batches: each count must be >= 1, got " + Twine(m));
  if (maxSeq && (!onlyRecompute.empty() || !microBatchList.empty()))
    return fail("--max-seq tries full recompute and one or the most "
                "micro-batches: --recompute and --micro-batches do not apply");
  if (maxMicroBatches < 1 || fuseChunks < 0 || composeLayers < 0)
    return fail("--max-micro-batches must be >= 1, --fuse-chunks and "
                "--compose-layers >= 0");
  std::string error;
  std::string configText = readFile(hfConfig, error);
  if (!error.empty())
    return fail(error);
  std::string clusterText = readFile(clusterFile, error);
  if (!error.empty())
    return fail(error);
  Expected<Cluster> cluster = parseCluster(clusterText, clusterFile);
  if (!cluster)
    return fail(toString(cluster.takeError()));
  auto peakIt = cluster->peakFlops.find(precision);
  if (peakIt == cluster->peakFlops.end())
    return fail(clusterFile + ": no peak_flops for " + precision);
  double peak = peakIt->second;
  Calibration calibration;
  if (!calibrationFile.empty()) {
    std::string text = readFile(calibrationFile, error);
    if (!error.empty())
      return fail(error);
    Expected<Calibration> c = parseCalibration(text, calibrationFile);
    if (!c)
      return fail(toString(c.takeError()));
    calibration = *c;
  }

  mlir::DialectRegistry registry;
  seqpar::registerAllDialects(registry);
  // A second context lets two independent compiles run at once.
  mlir::MLIRContext context(registry), second(registry);
  SmallVector<mlir::MLIRContext *, 2> contexts{&context};
  if (jobs > 1)
    contexts.push_back(&second);
  for (mlir::MLIRContext *c : contexts) {
    c->disableMultithreading();
    c->printOpOnDiagnostic(false);
  }
  // Models of one micro-batch's global batch (G / M), imported once each.
  CandidateCompiler::Options compilerOptions;
  compilerOptions.config = configText;
  compilerOptions.source = hfConfig;
  compilerOptions.precision = precision;
  compilerOptions.fuseChunks = fuseChunks;
  compilerOptions.composeLayers = composeLayers;
  compilerOptions.memoryBytes = cluster->memoryBytes;
  compilerOptions.check = checkComposition;
  Expected<int64_t> layers = layerCount(configText);
  if (!layers) {
    consumeError(layers.takeError());
    compilerOptions.composeLayers = 0;
  }
  CandidateCompiler compiler(contexts, compilerOptions, layers ? *layers : 0);
  if (maxSeq) {
    // Only the models of the lengths being compared stay imported.
    auto compile = [&](const Layout &l,
                       int64_t seq) -> Expected<CompileResult> {
      compiler.keepOnly(seq);
      int64_t batch = globalBatch / l.microBatches;
      Expected<CompileResult> r = compiler.compile(l, seq, batch);
      // A composed peak is a lower bound (docs/planner.md): a fit is
      // decided on the whole compile.
      if (!r || !r->composed || r->peakTotal() > cluster->memoryBytes)
        return r;
      return compiler.compileFull(l, seq, batch);
    };
    std::vector<Layout> layouts =
        leanLayouts(cluster->gpus(), globalBatch, maxMicroBatches);
    llvm::erase_if(layouts, [](const Layout &l) {
      return (onlyTp && l.tp != onlyTp) || (onlyCp && l.cp != onlyCp) ||
             (onlyPp && l.pp != onlyPp);
    });
    MaxSeqResult r = findMaxSeq(layouts, seqBlock, maxSeqLimit,
                                cluster->memoryBytes, compile);
    return printMaxSeq(r, *cluster, peak, calibration, start);
  }

  SearchOptions searchOptions;
  searchOptions.seqLen = seqLen;
  searchOptions.globalBatch = globalBatch;
  searchOptions.maxMicroBatches = maxMicroBatches;
  searchOptions.maxCompiles = maxCompiles;
  searchOptions.fuseChunks = fuseChunks;
  searchOptions.top = top;
  searchOptions.peakFlops = peak;
  searchOptions.calibration = calibration;
  searchOptions.leanFirst = leanFirst;
  searchOptions.bound = useBound;
  searchOptions.layers = layers ? *layers : 0;
  searchOptions.tp = onlyTp;
  searchOptions.cp = onlyCp;
  searchOptions.pp = onlyPp;
  searchOptions.recompute = onlyRecompute;
  searchOptions.microBatches.assign(microBatchList.begin(),
                                    microBatchList.end());
  Expected<SearchResult> search =
      searchLayouts(compiler, *cluster, searchOptions);
  if (!search)
    return fail(toString(search.takeError()));
  const std::vector<Ranked> &ranked = search->ranked;
  const auto &rejected = search->rejected;
  int64_t gpus = cluster->gpus();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  int64_t rejectedCount = 0;
  for (auto &[reason, layouts] : rejected)
    rejectedCount += int64_t(layouts.size());

  auto commands = [&](const Layout &l) { return commandLines(l, seqLen); };

  if (jsonOutput) {
    json::Array rows;
    for (size_t i = 0; i < ranked.size() && i < top; ++i) {
      const Ranked &r = ranked[i];
      const Layout &l = r.layout;
      json::Array flags;
      for (std::string &f : l.compileFlags(precision))
        flags.push_back(f);
      rows.push_back(json::Object{
          {"layout", l.name()},
          {"tp", l.tp},
          {"sp", l.sp},
          {"cp", l.cp},
          {"pp", l.pp},
          {"dp", l.dp},
          {"zero", l.zero},
          {"micro_batches", l.microBatches},
          {"recompute", l.recompute},
          {"import_batch", globalBatch / l.microBatches},
          {"sp_compile_flags", std::move(flags)},
          {"step_seconds", r.prediction.stepSeconds},
          {"lower_bound_seconds", r.bound},
          {"compute_seconds", r.prediction.slowest.compute},
          {"exposed_comm_seconds", r.prediction.slowest.exposedComm},
          {"hidden_comm_seconds", r.prediction.slowest.hiddenComm},
          {"bubble", r.prediction.bubble},
          {"tokens_per_second", r.prediction.tokensPerSecond},
          {"mfu", r.prediction.mfu},
          {"hfu", r.prediction.hfu},
          {"per_rank_peak_bytes", json::Object(r.peak)},
          {"stage_peak_bytes", json::Array(r.stagePeaks)}});
    }
    json::Array reasons;
    for (auto &[reason, layouts] : rejected) {
      json::Array names;
      for (const std::string &n : layouts)
        names.push_back(n);
      reasons.push_back(json::Object{{"reason", reason},
                                     {"count", int64_t(layouts.size())},
                                     {"layouts", std::move(names)}});
    }
    json::Object out{{"gpus", gpus},
                     {"memory_bytes", cluster->memoryBytes},
                     {"precision", precision},
                     {"planning_seconds", seconds},
                     {"compiled", search->compiled},
                     {"fit", int64_t(ranked.size())},
                     {"dominated_not_compiled", search->dominated},
                     {"lean_rejected", search->leanRejected},
                     {"capped_not_compiled", search->capped},
                     {"skipped_after_compiler_rejection", search->skipped},
                     {"bounded_not_compiled", search->bounded},
                     {"bound_compiles", search->boundCompiles},
                     {"unbounded_layouts", search->unbounded},
                     {"bound_violations", search->boundViolations},
                     {"probe_compiles", search->probeCompiles},
                     {"rejected_by_probe", search->probeRejected},
                     {"composed", compiler.composedCount},
                     {"compiled_whole", compiler.fullCount},
                     {"composition_checked", compiler.checks.checked},
                     {"composition_equal", compiler.checks.equal},
                     {"composition_under", compiler.checks.under},
                     {"composition_mismatches", compiler.checks.mismatches},
                     {"composition_over", compiler.checks.over},
                     {"composition_max_under", compiler.checks.maxUnder},
                     {"composition_max_over", compiler.checks.maxOver},
                     {"ranked", std::move(rows)},
                     {"rejected", std::move(reasons)}};
    if (!ranked.empty()) {
      auto [importLine, compileLine] = commands(ranked.front().layout);
      out["winner"] =
          json::Object{{"sp_import", importLine}, {"sp_compile", compileLine}};
    }
    outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n";
    return ranked.empty() ? 2 : 0;
  }

  outs() << formatv(
      "sp-plan: {0} on {1} ({2} x {3} GPUs, {4} each), "
      "seq {5}, global batch {6}, {7}\n",
      hfConfig, cluster->name.empty() ? clusterFile.getValue() : cluster->name,
      cluster->nodes, cluster->gpusPerNode, bytesText(cluster->memoryBytes),
      seqLen, globalBatch, precision);
  outs() << formatv(
      "planned in {0:F2} s: {1} candidates compiled, {2} fit, "
      "{3} rejected, {4} dominated and {5} rejected without recompute "
      "(not compiled), {6} over --max-compiles\n",
      seconds, search->compiled, ranked.size(), rejectedCount,
      search->dominated, search->skipped, search->capped);
  outs() << formatv("lower bounds from {0} compiles ({1} (tp, sp, cp, "
                    "attention, recompute) without one): {2} variants not "
                    "compiled, their bound at or above the slowest of the "
                    "{3} fastest steps; {4} rejected by a probe of one "
                    "axis alone ({5} probe compiles)\n",
                    search->boundCompiles, search->unbounded, search->bounded,
                    top, search->probeRejected, search->probeCompiles);
  if (search->boundViolations)
    outs() << formatv("warning: {0} predictions below their lower bound "
                      "(e.g. {1}); the pruning may have lost layouts\n",
                      search->boundViolations, search->firstViolation);
  if (composeLayers)
    outs() << formatv("composed from {0} and {1} layers per stage: {2} "
                      "candidates, {3} rejected on those; compiled whole: {4} "
                      "({5} near the memory limit, the rest shown or too "
                      "shallow to compose)\n",
                      composeLayers, composeLayers + 1, compiler.composedCount,
                      compiler.shallowRejected, compiler.fullCount,
                      compiler.nearLimitCount);
  else
    outs() << "every candidate compiled whole (--compose-layers 0)\n";
  outs() << formatv("{0} compiles of {1} layers in all\n", compiler.compiles,
                    compiler.layersCompiled);
  if (checkComposition) {
    const CandidateCompiler::CheckStats &c = compiler.checks;
    outs() << formatv("checked: {0} composed or rejected candidates against "
                      "their whole compiles, {1} equal to the byte or "
                      "rejected by both; stage peaks composed "
                      "below: {2} (by up to {3:F3}%), above: {4} (by up to "
                      "{5:F3}%)\n",
                      c.checked, c.equal, c.under, c.maxUnder * 100, c.over,
                      c.maxOver * 100);
    if (c.mismatches)
      outs() << formatv("  {0} FLOPs, bytes or rejections unlike the whole "
                        "compile's\n",
                        c.mismatches);
    for (const auto &[fraction, what] : c.examples)
      outs() << formatv("  {0:F3}% {1}\n", fraction * 100, what);
  }
  outs() << "\n";
  outs() << formatv("{0,-4} {1,-30} {2,10} {3,12} {4,6} {5,11} {6,11} "
                    "{7,11} {8,11} {9,11} {10,11} {11,11}\n",
                    "rank", "layout", "step ms", "tokens/s", "MFU", "peak",
                    "params", "optimizer", "activations", "gradients",
                    "workspaces", "arena");
  for (size_t i = 0; i < ranked.size() && i < top; ++i) {
    const Ranked &r = ranked[i];
    auto b = [&](StringRef key) {
      return bytesText(r.peak.getInteger(key).value_or(0));
    };
    outs() << formatv("{0,-4} {1,-30} {2,10:F3} {3,12:F0} {4,5:F1}% {5,11} "
                      "{6,11} {7,11} {8,11} {9,11} {10,11} {11,11}\n",
                      i + 1, r.layout.name(), r.prediction.stepSeconds * 1e3,
                      r.prediction.tokensPerSecond, r.prediction.mfu * 100,
                      b("total"), b("parameters"), b("optimizer_state"),
                      b("activations"), b("gradients"), b("workspaces"),
                      b("arena_bytes"));
  }
  outs() << "\nrejected, by reason:\n";
  for (auto &[reason, layouts] : rejected) {
    outs() << formatv("  {0,4} x {1}\n", layouts.size(), reason);
    outs() << "         e.g. " << join(ArrayRef(layouts).take_front(3), "; ")
           << "\n";
  }
  if (ranked.empty()) {
    outs() << "\nno layout fits\n";
    return 2;
  }
  auto [importLine, compileLine] = commands(ranked.front().layout);
  outs() << "\nwinner: " << ranked.front().layout.name() << "\n  " << importLine
         << "\n  " << compileLine << "\n";
  return 0;
}

//===- Trainer.cpp - a compiled program's run, in its phases --------------===//
//
// See Trainer.h. Every check that can fail is made by every rank on the same
// inputs where it can be, so a bad flag or file makes every rank print the
// error and exit 1; a failure on one rank alone ends the job (Failure.h).
// The paths rank 0 writes are checked by rank 0 before the first step
// (Outputs.h), and every rank prints its error.
//
//===----------------------------------------------------------------------===//

#include "Trainer.h"

#include "AttentionKernel.h"
#include "Comm.h"
#include "DataPosition.h"
#include "Failure.h"
#include "HfExport.h"
#include "Memory.h"
#include "MemoryFit.h"
#include "MemoryReport.h"
#include "Mesh.h"
#include "Observability.h"
#include "Outputs.h"
#include "PointToPoint.h"
#include "SafeTensors.h"
#include "Startup.h"
#include "TiedCheck.h"
#include "Trace.h"

#include "sprt/device.h"
#include "sprt/init.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace sprt;

/// Ends the job on every rank with rank 0's `problem` when it has one (rank 0
/// checks the paths it writes; the others print its message).
static void failWithRankZeros(const std::string &problem) {
  int64_t bytes = int64_t(problem.size());
  World::broadcast(&bytes, int64_t(sizeof bytes), 0);
  if (!bytes)
    return;
  std::string text = problem;
  text.resize(size_t(bytes));
  World::broadcast(text.data(), bytes, 0);
  fatal(text);
}

int Trainer::setUp(int argc, char **argv) {
  bool help = false;
  std::string error;
  if (!parseFlags(argc, argv, flags, help, error))
    fatal(error);
  if (help) {
    if (World::rank() == 0)
      std::printf("%s", usage(argv[0]).c_str());
    return 0;
  }
  setCollectiveTimeout(flags.timeout);
  // Before the first allocation: the trace's memory counter sees every byte.
  if (!flags.trace.empty()) {
    traceTo = traceFile(flags.trace, World::rank());
    std::string problem = traceFileProblem(traceTo);
    if (!problem.empty())
      fatal(problem);
    startTrace(World::rank());
  }
  if (!model.parse(seqpar_model_json, error))
    fatal(error);
  // What the compiler planned is measured apart from what it did not plan
  // (the pools and the backend's scratch).
  for (const auto &[name, bytes] : model.planned) {
    MemoryCategory category;
    if (!memoryCategoryNamed(name, category))
      fatal("the program plans memory of an unknown category '" + name + "'");
    memoryTracker().setPlanned(category);
  }
  // This rank's device, before the mesh (whose communicators may live on
  // it).
  if (const char *deviceError = sprt_device_init(World::localRank()))
    fatal(std::string(sprt_backend_name()) + " backend: " + deviceError);
  // The backend's own scratch is counted with the runtime's allocations.
  trackBackendScratch();
  selectAttentionKernel(model);
  // How the mesh's Comms will communicate (--comm).
  std::string commProblem = World::useComm(flags.comm);
  if (!commProblem.empty())
    fatal(commProblem);
  World::setSpinWait(flags.spinWait);
  // The axes' names first: creating a communicator may fail, naming its axis.
  mesh().names = model.axes;
  if (sprt_mesh_init(int32_t(model.axisSizes.size()), model.axisSizes.data()) !=
      0)
    return 1;
  // Pipeline parallelism: the arena, FLOPs, planned memory and gradients of
  // this rank's stage.
  model.selectStage();
  prepareAttention(model, flags.packDocuments);
  checkMemoryFit(model);
  sprt_set_seed(flags.seed);
  rank = int(sprt_world_rank());
  checkRun();
  return -1;
}

void Trainer::checkRun() {
  std::string error;
  if (!model.training()) {
    if (!flags.dumpGrads.empty())
      fatal("--dump-grads needs a training program (sp-compile --train)");
    if (!flags.checkpointDir.empty())
      fatal("--checkpoint-dir needs a training program (sp-compile --train)");
    if (flags.skipNonFinite)
      fatal("--on-nonfinite skip needs a training program (sp-compile "
            "--train): a forward-only step has no update to skip");
  }

  // An export that cannot be written is refused before the run.
  if (!flags.exportHf.empty()) {
    if (model.hfConfig.empty())
      fatal("--export-hf: this program has no Hugging Face config (it was "
            "compiled from IR that sp-import did not write)");
    std::string problem = rank == 0 ? exportDirProblem(flags.exportHf) : "";
    if (!allAgree(problem.empty()))
      fatal(rank == 0 ? problem : "--export-hf: rank 0 refused the directory");
  }
  // The paths rank 0 writes (Outputs.h), before anything is drawn or run.
  failWithRankZeros(rank == 0 ? outputsProblem(flags) : "");

  batcher = std::make_unique<Batcher>(model, flags.seed);
  if (flags.hasDataSeed)
    batcher->setDataSeed(flags.dataSeed);
  if (!flags.data.empty() &&
      !batcher->load(flags.data, flags.packDocuments, flags.shuffle, error))
    fatal(error);
  // Validation data: the same rules (format, packing, shuffling, seed).
  if (!flags.validData.empty()) {
    std::string why = Evaluator::unsupported(model);
    if (!why.empty())
      fatal(why);
  }
  valid = std::make_unique<Batcher>(model, flags.seed);
  valid->setDataSeed(batcher->dataSeed());
  if (!flags.validData.empty() &&
      !valid->load(flags.validData, flags.packDocuments, flags.shuffle, error))
    fatal(error);
  // --epochs E: the steps that read E epochs of the data (the last step may
  // run into the next epoch).
  if (flags.epochs) {
    flags.steps = batcher->stepsForEpochs(flags.epochs);
    if (!flags.steps)
      fatal("--epochs needs tokenized data or --shuffle (raw text is read at "
            "random positions, without epochs)");
    if (rank == 0)
      std::printf(
          "%lld epochs of %lld %s: %lld steps\n", (long long)flags.epochs,
          (long long)batcher->position(1).samplesPerEpoch,
          batcher->packing() ? "tokens" : "samples", (long long)flags.steps);
  }

  // The optimizer's hyperparameters: the flags over the program's defaults.
  if (!resolveSchedule(flags.schedule, model.hyperparameters, flags.steps,
                       schedule, error))
    fatal(error);
  // The loss scale of a program compiled with fp16 precision.
  if (!scaler.resolve(flags.lossScale, model.hyperparameters, error))
    fatal(error);

  if (flags.checkTied && tiedParams(model).empty())
    fatal("--check-tied: no parameter of this program is held by several "
          "pipeline stages (a model with tied embeddings compiled with "
          "--pp 2 or more has one)");
}

/// The backend's graphs (sprt_graph_*) and the runtime's refusals
/// (sprt_capture_*), agreed over the world.
static GraphStep::Backend deviceGraphs() {
  GraphStep::Backend b;
  b.supported = [] { return sprt_graph_supported() != 0; };
  b.begin = [] {
    sprt_graph_begin_capture(sprt_current_stream());
    sprt_capture_begin();
  };
  b.end = [](std::string &why) -> void * {
    const char *refused = sprt_capture_end();
    const char *failed = nullptr;
    sprt_graph_t graph = sprt_graph_end_capture(sprt_current_stream(), &failed);
    if (graph && !refused)
      return graph;
    if (graph)
      sprt_graph_destroy(graph);
    why = refused ? refused : failed ? failed : "the capture failed";
    return nullptr;
  };
  b.launch = [](void *graph) {
    // Its collectives run inside the graph: watched as one operation.
    World::launchWatched("the step's CUDA graph", [graph] {
      sprt_graph_launch(static_cast<sprt_graph_t>(graph),
                        sprt_current_stream());
    });
  };
  b.destroy = [](void *graph) {
    sprt_graph_destroy(static_cast<sprt_graph_t>(graph));
  };
  b.agree = [](bool ok) { return allAgree(ok); };
  return b;
}

/// Why a run that asked for graphs on a backend that has them does not use
/// them at all, or "".
static std::string graphsRuledOut(const Flags &flags, const Model &model,
                                  bool packing) {
  if (!flags.trace.empty())
    return "--trace times each op as it is issued";
  if (model.pipelineAxis >= 0)
    return "the pipeline's stages exchange activations through host-driven "
           "sends";
  if (packing)
    return "packed documents' position ids are copied from the host in the "
           "step";
  if (std::string(World::name()) == "mpi-staged")
    return "--comm mpi stages each collective through host memory, "
           "synchronising the stream";
  // The cuda backend over plain MPI (the emulator's programs, sp-compile
  // --target cuda-emu): a collective runs on the host when it is issued, so
  // a capture would not record it.
  if (std::string(World::name()) == "mpi" && World::size() > 1)
    return "MPI runs each collective on the host as it is issued";
  return "";
}

/// A step's by-value inputs that may change from step to step: its
/// hyperparameter table but the learning rate and the loss scale, which the
/// compiled step reads on the device (the optimizers; the gradient seed and
/// the clip scale: sprt_op_scale_by, sprt_op_clip_scale_by).
static std::vector<double> graphKey(const Model &model,
                                    std::vector<double> table) {
  for (size_t i = 0; i < model.hyperparameters.size() && i < table.size(); ++i)
    if (model.hyperparameters[i].first == "lr" ||
        model.hyperparameters[i].first == "loss_scale")
      table[i] = 0.0;
  return table;
}

void Trainer::prepare() {
  std::string error;
  // Start-up work on the host (parameter draws on the CPU backend) runs on
  // this rank's share of the node's cores.
  sprt_set_host_threads(hostThreadsPerRank(World::localSize()));
  paramStart = std::chrono::steady_clock::now();
  params = std::make_unique<Params>(model);
  // A resumed run loads every parameter (and master weight) from the
  // checkpoint below: nothing to draw.
  if (!flags.resume && (flags.initFrom.empty() || flags.initFromPartial))
    params->initialize(flags.seed);
  Params::Skipped skipped;
  if (!flags.resume && !flags.initFrom.empty() &&
      !params->load(flags.initFrom, error,
                    flags.initFromPartial ? &skipped : nullptr))
    fatal(error);
  if (rank == 0 && flags.initFromPartial)
    std::fprintf(
        stderr,
        "--init-from-partial: %zu of %zu parameters loaded from "
        "'%s'; drawn: %s; skipped tensors: %s\n",
        model.params.size() - skipped.missing.size(), model.params.size(),
        flags.initFrom.c_str(),
        skipped.missing.empty() ? "none" : joinNames(skipped.missing).c_str(),
        skipped.extra.empty() ? "none" : joinNames(skipped.extra).c_str());

  // Device memory (Memory.h): the arena of the size the compiler computed,
  // and the step's token inputs.
  arena =
      static_cast<char *>(allocate(model.arenaBytes, MemoryCategory::Arena));
  if (!arena)
    fatal("cannot allocate " + std::to_string(model.arenaBytes) + " bytes of " +
          sprt_backend_name() + " memory for the arena");
  tokenBytes = batcher->localTokens() * int64_t(sizeof(int64_t));
  ids = static_cast<int64_t *>(allocate(tokenBytes, MemoryCategory::Tokens));
  labels = static_cast<int64_t *>(allocate(tokenBytes, MemoryCategory::Tokens));
  if (!ids || !labels)
    fatal("cannot allocate " + std::to_string(2 * tokenBytes) + " bytes of " +
          sprt_backend_name() + " memory for the token inputs");

  // AdamW's fp32 moments: two buffers per parameter shard, zero at first.
  // With a distributed optimizer a parameter's state is this replica's
  // slice of its shard.
  // A parameter of another pipeline stage has none here (null entries).
  if (model.optimizer == Optimizer::adamw)
    for (size_t i = 0; i < model.params.size(); ++i) {
      if (!model.params[i].held()) {
        state.insert(state.end(), 2, nullptr);
        continue;
      }
      int64_t n = model.params[i].localElements() /
                  model.stateSlicing(int64_t(i)).count();
      for (int k = 0; k < 2; ++k) {
        state.push_back(static_cast<float *>(allocate(
            n * int64_t(sizeof(float)), MemoryCategory::OptimizerState)));
        if (!state.back())
          fatal("cannot allocate " +
                std::to_string(n * int64_t(sizeof(float))) + " bytes of " +
                sprt_backend_name() + " memory for the optimizer state");
      }
    }
  // Then the F32 master weights (Params owns them), one entry per parameter
  // (Model::masterStateIndex), after the moments.
  owned = state.size();
  if (model.hasMasters())
    state.insert(state.end(), params->masters().begin(),
                 params->masters().end());
  at.seed = flags.seed;
  if (flags.resume)
    resume();
  // Drawing or loading the parameters, and a resumed checkpoint's load.
  paramSeconds = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - paramStart)
                     .count();
  paramsFrom = flags.resume             ? "resumed"
               : flags.initFrom.empty() ? "drawn"
                                        : "loaded";
  at.schedule = schedule;
  at.hasLossScale = scaler.enabled();
  at.dataSeed = batcher->dataSeed();
  if (!flags.validData.empty())
    evaluator = std::make_unique<Evaluator>(model, *valid, params->pointers());
  const int64_t numScalars = std::max<int64_t>(model.numScalars, 1);
  scalars = static_cast<float *>(
      sprt_host_alloc(int64_t(sizeof(float)) * numScalars));
  if (!scalars)
    fatal("out of host memory for the step's " +
          std::to_string(model.numScalars) + " scalars");
  std::fill(scalars, scalars + numScalars, 0.0f);
  // Graphs where the backend has them and nothing rules them out.
  const bool graphsHere = sprt_graph_supported() != 0;
  std::string ruledOut = graphsRuledOut(flags, model, batcher->packing());
  if (graphsHere && flags.cudaGraph && !ruledOut.empty() && rank == 0)
    std::fprintf(stderr, "cuda graph: off, every step runs eagerly: %s\n",
                 ruledOut.c_str());
  graphs = std::make_unique<GraphStep>(
      flags.cudaGraph && ruledOut.empty(), deviceGraphs(),
      [this](const std::string &note) {
        if (rank == 0) {
          std::fprintf(stderr, "%s\n", note.c_str());
          std::fflush(stderr);
        }
      });
  grads.assign(model.grads.size(), nullptr);

  // The metrics log, opened once every start-up check has passed (a run
  // that fails before its first step leaves it as it was); a resumed run
  // appends to it.
  if (rank == 0 && !flags.log.empty() &&
      !log.open(flags.log, flags.resume, error))
    fatal("cannot write the metrics log: " + error);
}

void Trainer::resume() {
  std::string error;
  if (!resumeCheckpoint(flags.checkpointDir, model, *params, state, at, error))
    fatal(error);
  // The schedule goes on where the checkpoint left it, as it was.
  std::string warning;
  if (!checkResumedSchedule(at.schedule, schedule,
                            flags.schedule.overrideSchedule,
                            flags.checkpointDir, warning, error))
    fatal(error);
  if (rank == 0 && !warning.empty())
    std::fprintf(stderr, "%s\n", warning.c_str());
  // With --export-hf, a checkpoint at or past --steps is exported as it is.
  if (at.step >= flags.steps && flags.exportHf.empty())
    fatal("--resume: the checkpoint in '" + flags.checkpointDir +
          "' is at step " + std::to_string(at.step) + " and --steps is " +
          std::to_string(flags.steps) + ": nothing is left to run");
  // The seed fixes the data order and every random number: the run goes
  // on exactly as the one that saved.
  flags.seed = at.seed;
  sprt_set_seed(at.seed);
  if (scaler.enabled())
    scaler.state = at.lossScale;
  batcher->setSeed(at.seed);
  // The sample order goes on where it stood, on the same data.
  batcher->setDataSeed(at.dataSeed);
  valid->setDataSeed(at.dataSeed);
  // The data goes on at the first sequence the checkpoint did not read.
  std::string dataWarning;
  error = resumeDataPosition(at, *batcher, flags.checkpointDir, flags.data,
                             dataWarning);
  if (!error.empty())
    fatal(error);
  if (rank == 0 && !dataWarning.empty())
    std::fprintf(stderr, "%s\n", dataWarning.c_str());
  if (flags.epochs && batcher->stepsForEpochs(flags.epochs) != flags.steps)
    fatal("--epochs " + std::to_string(flags.epochs) + ": the checkpoint in '" +
          flags.checkpointDir + "' read " + std::to_string(at.sequences) +
          " sequences in " + std::to_string(at.step) +
          " steps; at this program's " + std::to_string(batcher->stepBatch()) +
          " per step the epochs end at step " +
          std::to_string(batcher->stepsForEpochs(flags.epochs)) + ", not " +
          std::to_string(flags.steps) + " (give --steps instead)");
  if (rank == 0)
    std::printf("resumed from step %lld of '%s'\n", (long long)at.step,
                flags.checkpointDir.c_str());
}

void Trainer::train() {
  r.hasPipeline = model.pipelineAxis >= 0;
  // The bubble over the run's steps, the first left out when there are
  // more (its waits include the first touch of every buffer).
  firstStep = at.step + 1;
  firstCounted = firstStep + (flags.steps > firstStep);
  for (int64_t step = at.step + 1; step <= flags.steps; ++step) {
    evaluatePending();
    runStep(step);
    std::string bad = checkFinite(step);
    Batcher::Position next = batcher->position(step + 1);
    at.sequences = next.sequences;
    at.epoch = next.epoch;
    at.sample = next.sample;
    at.samplesPerEpoch = next.samplesPerEpoch;
    checkpoint(step);
    if (step == flags.steps && !flags.dumpGrads.empty())
      dumpGrads();
    auto end = std::chrono::steady_clock::now();
    r.seconds = std::chrono::duration<double>(end - stepStart).count();
    traceStep(step, stepStart, end);
    // Validation after the step, once its figures are out (below).
    if (evaluator && ((flags.evalEvery && step % flags.evalEvery == 0) ||
                      step == flags.steps))
      evaluateAfter = step;
    if (rank == 0)
      report(step, bad);
  }
  evaluatePending();
  std::string error;
  if (!log.close(error))
    fatal("cannot write the metrics log: " + error);
}

void Trainer::runStep(int64_t step) {
  batcher->build(step);
  std::string error = batcher->unlabelled(step, "step");
  if (!error.empty())
    fatal(error);
  // Packed documents: the model's position ids are the data's.
  if (batcher->packing())
    sprt_set_position_ids(batcher->globalPositions(), batcher->stepBatch(),
                          model.seq, int32_t(model.batchAxis));
  sprt_reset_bytes_sent();
  sprt_set_step(step);
  mesh().optimizerStep = step - at.skipped;
  // The schedule stands where the updates applied so far put it.
  std::vector<double> hyperparameters =
      schedule.table(model.hyperparameters, step - 1 - at.skipped);
  table = hyperparameters;
  r.hasLr = schedule.hasLr;
  r.lr = schedule.lrAt(step - 1 - at.skipped);
  r.hasLossScale = scaler.enabled();
  r.lossScale = scaler.state.scale;
  if (scaler.enabled())
    hyperparameters[size_t(scaler.tableSlot())] = r.lossScale;
  barrier();
  if (step == firstStep) {
    r.startupSeconds = secondsSinceStart();
    r.paramSeconds = paramSeconds;
    // On stderr: the progress lines on stdout stay as they were.
    if (rank == 0) {
      std::fprintf(
          stderr, "start-up %.2f s to step %lld (parameters %s %.2f s)\n",
          r.startupSeconds, (long long)step, paramsFrom, r.paramSeconds);
      std::fflush(stderr);
    }
  } else {
    r.startupSeconds = r.paramSeconds = -1.0;
  }
  stepStart = std::chrono::steady_clock::now();
  takePointToPointWait();
  sprt_stream_t stream = sprt_current_stream();
  // The tokens, and the step's values a replay copies to the device, before
  // the step (a captured step records neither host copy).
  sprt_memcpy_to_device(ids, batcher->localIds(), tokenBytes, stream);
  sprt_memcpy_to_device(labels, batcher->localLabels(), tokenBytes, stream);
  sprt_stage_step_values(hyperparameters.data(),
                         int64_t(hyperparameters.size()));
  GraphStep::Ran ran = graphs->run(
      [&] {
        sprt_reset_bytes_sent();
        // One micro-batch until the step says otherwise, as sprt_set_step
        // left it (the eager run after a failed capture starts again).
        sprt_set_micro_batch(0, 1);
        seqpar_step(arena, params->pointers(), ids, labels, scalars,
                    grads.data(), state.data(), hyperparameters.data());
      },
      graphKey(model, hyperparameters));
  // A replay's collectives are not called from the host: they send what the
  // captured step's did.
  if (ran == GraphStep::Ran::captured) {
    capturedBytes.assign(model.axes.size(), 0);
    for (size_t a = 0; a < model.axes.size(); ++a)
      capturedBytes[a] = sprt_bytes_sent(int32_t(a));
  } else if (ran == GraphStep::Ran::replayed) {
    for (size_t a = 0; a < model.axes.size(); ++a)
      sprt_count_bytes_sent(int32_t(a), capturedBytes[a]);
  }
  r.graph = sprt_graph_supported() ? ranName(ran) : nullptr;
  // A step's sends are complete when it returns (a pipeline's dispatcher
  // completes them; a program of one stage may send too).
  sprt_complete_sends();
  sprt_stream_synchronize(stream);
  r.pipelineWait = takePointToPointWait();
  r.workSeconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - stepStart)
                      .count();
  if (step >= firstCounted)
    bubble.add(r.pipelineWait, r.workSeconds);
  if (flags.checkTied)
    checkTiedCopies(model, params->pointers(), step);
  r.step = step;
  r.loss = scalars[0];
  r.hasNorm = model.numScalars > 1;
  r.norm = r.hasNorm ? scalars[1] : 0.0f;
  // A non-finite gradient norm made the optimizers skip the update (the
  // clipping factor was NaN).
  r.skipped = r.hasNorm && !std::isfinite(r.norm);
  // With loss scaling that is an overflow: the scaler backs off and the
  // run goes on (the loss alone follows --on-nonfinite).
  r.overflow = r.hasLossScale && r.skipped;
  at.step = step;
}

std::string Trainer::checkFinite(int64_t step) {
  // The loss and the norm are global: every rank takes the same branch.
  std::string bad = nonFinite(r);
  if (!bad.empty()) {
    if (!flags.skipNonFinite)
      fatal("step " + std::to_string(step) + ": " + bad +
            "; stopping (--on-nonfinite stop)" +
            (r.skipped ? "; this step's update was not applied" : ""));
    if (model.training() && !r.skipped)
      fatal("step " + std::to_string(step) + ": " + bad +
            " but the gradients are finite and were applied: the step "
            "cannot be skipped");
    at.skipped += model.training() && !r.overflow;
  }
  if (r.hasLossScale && r.hasNorm) {
    at.skipped += r.overflow;
    scaler.update(!r.overflow);
    at.lossScale = scaler.state;
  }
  return bad;
}

void Trainer::checkpoint(int64_t step) {
  bool save =
      !flags.checkpointDir.empty() &&
      ((flags.saveEvery && step % flags.saveEvery == 0) || step == flags.steps);
  if (!save) {
    r.checkpointSeconds = -1.0;
    return;
  }
  std::string error;
  auto saveStart = std::chrono::steady_clock::now();
  if (!saveCheckpoint(flags.checkpointDir, at, flags.data, model, *params,
                      state, error))
    fatal(error);
  r.checkpointSeconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - saveStart)
                            .count();
  r.checkpointBytes =
      rank == 0 ? checkpointBytes(flags.checkpointDir, step) : 0;
  if (rank == 0)
    std::fprintf(
        stderr, "checkpoint of step %lld: %.3f GB in %.2f s (%.2f GB/s)\n",
        (long long)step, double(r.checkpointBytes) * 1e-9, r.checkpointSeconds,
        double(r.checkpointBytes) * 1e-9 / r.checkpointSeconds);
}

void Trainer::dumpGrads() {
  // Every gradient of the program, each from its owner stage (this stage's
  // step returned `model.grads`; the others' are null here).
  std::vector<const float *> local;
  for (int64_t g : model.allGrads) {
    auto it = std::find(model.grads.begin(), model.grads.end(), g);
    local.push_back(it == model.grads.end()
                        ? nullptr
                        : grads[size_t(it - model.grads.begin())]);
  }
  std::string error;
  if (!Params::dumpSharded(
          model, model.allGrads, "", local, flags.dumpGrads, error,
          model.allGradShardAxes, {}, false,
          {{}, dumpDTypes(model, model.allGrads, flags.dumpDtype)},
          // The gradients of the loss times the scale: the true ones.
          r.hasLossScale ? r.lossScale : 1.0))
    fatal(error);
}

void Trainer::report(int64_t step, const std::string &bad) {
  std::string comm;
  for (size_t a = 0; a < model.axes.size(); ++a)
    comm += " " + model.axes[a] + " " + humanBytes(sprt_bytes_sent(int32_t(a)));
  std::string norm = r.hasNorm ? " grad_norm " + fixed(r.norm) : "";
  if (r.hasLr)
    norm += " lr " + text(r.lr);
  if (r.hasLossScale)
    norm += " loss_scale " + shortestText(r.lossScale);
  // Shuffled or tokenized data: the epoch (0-based) of the step's first
  // sequence.
  Batcher::Position here = batcher->position(step);
  r.epoch = here.samplesPerEpoch ? here.epoch : -1;
  if (r.epoch >= 0)
    norm += " epoch " + std::to_string(r.epoch);
  std::string skipped;
  if (r.overflow)
    skipped = "  skipped: gradient overflow, loss scale now " +
              shortestText(scaler.state.scale) + " (" +
              std::to_string(at.skipped) + " skipped so far)";
  else if (!bad.empty() && model.training())
    skipped = "  skipped: " + bad + " (" + std::to_string(at.skipped) +
              " skipped so far)";
  else if (!bad.empty())
    skipped = "  non-finite: " + bad;
  Throughput speed = throughput(model, r.seconds, flags.peakFlops);
  std::printf("step %lld loss %s%s  [%lld/%lld, %.1f ms, %s, sent%s]%s\n",
              (long long)step, fixed(r.loss).c_str(), norm.c_str(),
              (long long)step, (long long)flags.steps, r.seconds * 1e3,
              throughputText(speed).c_str(), comm.c_str(), skipped.c_str());
  std::fflush(stdout);
  std::string error;
  if (log.isOpen() &&
      !log.append(metricsLine(model, r, at.skipped, speed), error))
    fatal("cannot write the metrics log: " + error);
}

void Trainer::evaluatePending() {
  if (!evaluateAfter)
    return;
  double loss = evaluator->run(flags.evalSteps, table, arena, ids, labels);
  if (rank == 0) {
    std::printf("step %lld valid loss %s ppl %s [%lld batches]\n",
                (long long)evaluateAfter, fixed(loss).c_str(),
                fixed(std::exp(loss)).c_str(), (long long)flags.evalSteps);
    std::fflush(stdout);
  }
  evaluateAfter = 0;
}

void Trainer::finish() {
  std::string error;
  if (!flags.dumpParams.empty() &&
      !params->dump(flags.dumpParams, error, {}, false,
                    dumpDTypes(model, allParams(model), flags.dumpDtype)))
    fatal(error);
  if (!flags.exportHf.empty() &&
      !exportHf(model, *params, flags.exportHf,
                flags.exportShardBytes ? flags.exportShardBytes
                                       : kDefaultExportShardBytes,
                error))
    fatal(error);
  if (!flags.dumpOutputs.empty()) {
    // The whole step's batch: every micro-batch's sequences.
    std::vector<int64_t> shape{batcher->stepBatch(), model.seq};
    uint64_t bytes =
        uint64_t(batcher->stepBatch() * model.seq) * sizeof(int64_t);
    std::vector<TensorToWrite> outputs{
        {"input_ids", "I64", shape, batcher->globalIds(), bytes},
        {"labels", "I64", shape, batcher->globalLabels(), bytes}};
    // Packed documents: the position ids too (0 starts a document).
    if (batcher->packing())
      outputs.push_back(
          {"position_ids", "I64", shape, batcher->globalPositions(), bytes});
    outputs.push_back({"loss", "F32", {}, &r.loss, sizeof(float)});
    bool ok = rank != 0 || writeSafeTensors(flags.dumpOutputs, outputs, error);
    if (!allAgree(ok))
      fatal(ok ? "rank 0 could not write '" + flags.dumpOutputs + "'" : error);
  }
  if (rank == 0 && scaler.enabled())
    std::printf("loss scaling: %lld steps skipped (overflow), final scale %s\n",
                (long long)scaler.state.skipped,
                shortestText(scaler.state.scale).c_str());
  if (rank == 0) {
    std::printf("%s", memoryLine(model).c_str());
    std::fflush(stdout);
  }
  // Every rank's measured bubble next to the theory (collective).
  if (r.hasPipeline && bubble.steps > 0) {
    std::string line =
        gatherBubble(bubble, model.numStages(), model.microBatches,
                     firstCounted, flags.steps);
    if (rank == 0) {
      std::printf("%s", line.c_str());
      std::fflush(stdout);
    }
  }
  if (!traceTo.empty()) {
    bool ok = writeTrace(traceTo, error);
    if (!allAgree(ok))
      fatal(ok ? "another rank could not write its trace" : error);
  }
  evaluator.reset();
  graphs.reset();
  sprt_host_free(scalars);
  scalars = nullptr;
  for (void *p : {static_cast<void *>(arena), static_cast<void *>(ids),
                  static_cast<void *>(labels)})
    release(p);
  state.resize(owned); // the master weights are released by Params
  for (float *p : state)
    release(p);
  sprt_mesh_finalize();
}

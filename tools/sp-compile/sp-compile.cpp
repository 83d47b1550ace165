//===- sp-compile.cpp - model IR to a sequence-parallel executable --------===//
//
//   sp-compile model.mlir --tp T [--sp] [--dp D] [--cp C] [--target cpu|cuda]
//              [--train [--pp P [--pp-layers a,b,...]]
//                       [--recompute none|selective|full] ...]
//              [--emit mlir|llvm|obj|exe]
//              [--report memory|comm] -o OUT
//              [--mlir-timing [--mlir-timing-display=list|tree]]
//              [--dump-after STAGE[,STAGE...]]
//
// Runs the pipeline in-process: lib/Pipelines' inference or train pipeline
// (the same sp-opt runs as --sp-inference-pipeline / --sp-train-pipeline),
// ending in convert-sp-to-runtime unless --emit mlir; then translation to
// LLVM IR, code generation with the host's TargetMachine, and a link with
// libsprt through the C++ compiler this build used. The program is the same
// for every target (one runtime ABI); --target picks the runtime backend it
// is linked with: cpu (OpenBLAS + MPI) or, in a build that found the CUDA
// toolkit, cuda (cuBLAS + CUDA kernels + NCCL). Every numeric flag is
// checked first (checkFlags): decimal, finite, in range.
// --mlir-timing prints, on stderr, the time of parsing, of each pass, of the
// output and of each step after the pass pipeline (MLIR's timing report).
// --dump-after prints the module after the named passes of the pipeline on
// stderr (MLIR's IR printing); the output is unchanged. --help shows
// sp-compile's options only, grouped; --help-hidden adds LLVM's.
//
//===----------------------------------------------------------------------===//

#include "LinkConfig.h"
#include "common/ToolHelp.h"

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/InitAll.h"
#include "seqpar/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cmath>
#include <cstdio>

using namespace llvm;

static int fail(const Twine &message) {
  WithColor::error(errs(), "sp-compile") << message << "\n";
  return 1;
}

namespace {
/// Real flags are finite decimal numbers: digits with an optional point and
/// exponent; no inf, nan, hexadecimal floats, or values past double.
struct FiniteParser : cl::parser<double> {
  using cl::parser<double>::parser;
  bool parse(cl::Option &o, StringRef, StringRef arg, double &value) {
    static const Regex decimal(
        "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$");
    if (!decimal.match(arg) || arg.getAsDouble(value) || !std::isfinite(value))
      return fail("--" + o.ArgStr + " must be a finite decimal number, got '" +
                  arg + "'") != 0;
    return false;
  }
};
} // namespace

// --help shows these groups only (ToolHelp.h); LLVM's and MLIR's other
// options are listed by --help-hidden.
static cl::OptionCategory parallelism("Parallelism");
static cl::OptionCategory training("Training (with --train)");
static cl::OptionCategory codegen("Code generation");
static cl::OptionCategory inspection("Inspection");

static cl::opt<std::string> input(cl::Positional, cl::Required,
                                  cl::desc("<model.mlir>"));
// Integer flags are read as text and parsed strictly by checkFlags
// (cl::parser<int64_t> is final: a stricter parser cannot derive from it).
static cl::opt<std::string> tpFlag("tp",
                                   cl::desc("Tensor-parallel degree (default "
                                            "1)"),
                                   cl::value_desc("int"), cl::init("1"),
                                   cl::cat(parallelism));
static cl::opt<std::string> dpFlag("dp",
                                   cl::desc("Data-parallel degree (default 1)"),
                                   cl::value_desc("int"), cl::init("1"),
                                   cl::cat(parallelism));
static cl::opt<std::string> cpFlag("cp",
                                   cl::desc("Context-parallel degree: the "
                                            "sequence split through attention "
                                            "(default 1)"),
                                   cl::value_desc("int"), cl::init("1"),
                                   cl::cat(parallelism));
static cl::opt<std::string> ppFlag("pp",
                                   cl::desc("Pipeline-parallel degree, with "
                                            "--train (default 1)"),
                                   cl::value_desc("int"), cl::init("1"),
                                   cl::cat(parallelism));
static cl::list<std::string>
    ppLayersFlag("pp-layers",
                 cl::desc("With --pp: the layers of each stage (default: "
                          "balanced)"),
                 cl::value_desc("a,b,..."), cl::CommaSeparated,
                 cl::cat(parallelism));
static cl::opt<seqpar::CpAttention>
    cpAttention("cp-attention",
                cl::desc("With --cp: how attention sees the whole sequence "
                         "(default allgather)"),
                cl::init(seqpar::CpAttention::allgather),
                seqpar::cpAttentionValues(), cl::cat(parallelism));
static cl::opt<bool> sp("sp",
                        cl::desc("Sequence parallelism along tp (default off)"),
                        cl::cat(parallelism));
static cl::opt<bool> train("train",
                           cl::desc("Build a training step (default: the "
                                    "forward only)"),
                           cl::cat(training));
static cl::opt<seqpar::OptimizerKind>
    optimizerName("optimizer", cl::desc("The optimizer (default adamw)"),
                  cl::init(seqpar::OptimizerKind::adamw),
                  seqpar::optimizerKindValues(), cl::cat(training));
static cl::opt<double, false, FiniteParser>
    lr("lr", cl::desc("Learning rate (default 0.001)"), cl::init(1e-3),
       cl::cat(training));
static cl::opt<double, false, FiniteParser>
    beta1("beta1", cl::desc("AdamW beta1 (default 0.9)"), cl::init(0.9),
          cl::cat(training));
static cl::opt<double, false, FiniteParser>
    beta2("beta2", cl::desc("AdamW beta2 (default 0.999)"), cl::init(0.999),
          cl::cat(training));
static cl::opt<double, false, FiniteParser>
    adamEps("adam-eps", cl::desc("AdamW epsilon (default 1e-08)"),
            cl::init(1e-8), cl::cat(training));
static cl::opt<double, false, FiniteParser>
    weightDecay("weight-decay", cl::desc("Weight decay (default 0)"),
                cl::init(0.0), cl::cat(training));
static cl::opt<std::string>
    zeroFlag("zero", cl::value_desc("int"),
             cl::desc("With --dp and/or --cp: 1 shards the optimizer state "
                      "over dp x cp, ZeRO-1 (default 0)"),
             cl::init("0"), cl::cat(training));
static cl::opt<std::string> microBatchesFlag(
    "micro-batches", cl::value_desc("int"),
    cl::desc("Gradient accumulation: each step runs the forward and backward "
             "of this many micro-batches of the imported batch and sums their "
             "gradients (default 1)"),
    cl::init("1"), cl::cat(training));
static cl::opt<seqpar::GradReduceDtype> gradReduceDtype(
    "grad-reduce-dtype",
    cl::desc("The element type gradients are reduced in across ranks "
             "(default f32)"),
    cl::init(seqpar::GradReduceDtype::f32), seqpar::gradReduceDtypeValues(),
    cl::cat(training));
static cl::opt<bool> overlapGradReductions(
    "overlap-grad-reductions",
    cl::desc("Start each gradient bucket's reduction as soon as its "
             "gradients are computed, overlapping the rest of the backward; "
             "=false reduces every bucket at the end (default true for "
             "--target cuda, false for cpu: MPI progresses only inside MPI "
             "calls, measured slower by bench/grad-overlap.sh)"),
    cl::init(true), cl::cat(training));
static cl::opt<seqpar::MasterWeights> masterWeights(
    "master-weights",
    cl::desc("With --precision bf16|fp16: sharded keeps the fp32 master "
             "weights with the optimizer state, sharded over dp with "
             "--zero 1, whole without it (bf16/fp16 parameters: 2 + 12/dp "
             "bytes per parameter with AdamW, no per-step conversion of "
             "the parameters), replicated keeps them as the parameters "
             "(4 + 8/dp), auto is sharded with --zero 1 and replicated "
             "without it (default auto)"),
    cl::init(seqpar::MasterWeights::automatic), seqpar::masterWeightsValues(),
    cl::cat(training));
static cl::opt<double, false, FiniteParser>
    gradClip("grad-clip",
             cl::desc("Clip the global gradient norm (default 0: off)"),
             cl::init(0.0), cl::cat(training));
static cl::opt<seqpar::RecomputePolicy>
    recompute("recompute",
              cl::desc("What the backward recomputes instead of keeping "
                       "(default none)"),
              cl::init(seqpar::RecomputePolicy::none),
              seqpar::recomputePolicyValues(), cl::cat(training));
static cl::opt<seqpar::Precision> precision(
    "precision",
    cl::desc("The model's precision (storage; arithmetic in fp32; training "
             "keeps fp32 master weights, fp16 adds dynamic loss scaling) "
             "(default imported)"),
    cl::init(seqpar::Precision::imported), seqpar::precisionValues(),
    cl::cat(codegen));
static cl::opt<bool> storageGemms(
    "storage-gemms",
    cl::desc("bf16 / f16 programs: the GEMMs read and write their tensors "
             "as stored (default true; =false computes them on f32 copies)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<bool> storageElementwise(
    "storage-elementwise",
    cl::desc("bf16 / f16 programs: add, mul, gelu, silu, relu, dropout and "
             "the activations' gradients "
             "read and write their tensors as stored (default true; =false "
             "computes them on f32 copies)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<bool> storageRows(
    "storage-rows",
    cl::desc("bf16 / f16 programs: the norms, the cross-entropy, their "
             "backward and the bias gradients read and write their tensors "
             "as stored (default true; =false computes them on f32 copies)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<bool> storageAttention(
    "storage-attention",
    cl::desc("bf16 / f16 programs: attention and its backward read and write "
             "q, k, v and their gradients as stored (default true; =false "
             "computes them on f32 copies)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<bool> fuseElementwise(
    "fuse-elementwise",
    cl::desc("Fuse each dropout with the residual add it feeds "
             "(tfm.dropout_add), SwiGLU's SiLU with its product, forward "
             "and backward (tfm.swiglu, _grad), each residual sum with the "
             "norm after it (tfm.add_layer_norm, add_rms_norm) and each "
             "norm's backward with the residual gradient's add (default "
             "true; the same bits)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<bool> fuseEpilogues(
    "fuse-epilogues",
    cl::desc("Fuse each GELU, and its gradient, with the GEMM next to it, "
             "and each bias gradient with its weight gradient: "
             "tfm.linear_gelu, tfm.linear_gelu_grad, "
             "tfm.linear_grad_weight_bias (default true; cuda: cuBLASLt's "
             "epilogues)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<bool> saveAttentionStats(
    "save-attention-stats",
    cl::desc("Keep each attention's softmax statistics (4 bytes per query "
             "row and head) for its backward, which then reads the "
             "forward's result instead of running the forward again "
             "(default true; =false recomputes it)"),
    cl::init(true), cl::cat(codegen));
static cl::opt<std::string> fuseChunksFlag(
    "fuse-chunks", cl::value_desc("int"),
    cl::desc("Fuse each sequence all-gather with the column GEMM it feeds, "
             "gathering in this many chunks (default 2; 0: do not fuse)"),
    cl::init("2"), cl::cat(codegen));
enum class Backend { cpu, cuda, cuda_emu };
static cl::opt<Backend>
    target("target", cl::desc("Runtime backend to link (default cpu)"),
           cl::init(Backend::cpu),
           cl::values(clEnumValN(Backend::cpu, "cpu", "OpenBLAS + MPI"),
                      clEnumValN(Backend::cuda, "cuda", "CUDA + cuBLAS + NCCL"),
                      clEnumValN(Backend::cuda_emu, "cuda-emu",
                                 "the cuda program with its kernels on the CPU "
                                 "emulator, over MPI (checks without a GPU)")),
           cl::cat(codegen));
enum class Emit { mlir, llvm, obj, exe };
static cl::opt<Emit>
    emit("emit", cl::desc("What to produce (default exe)"), cl::init(Emit::exe),
         cl::values(clEnumValN(Emit::mlir, "mlir", "the planned program's IR"),
                    clEnumValN(Emit::llvm, "llvm", "LLVM IR"),
                    clEnumValN(Emit::obj, "obj", "an object file"),
                    clEnumValN(Emit::exe, "exe", "an executable")),
         cl::cat(codegen));
static cl::opt<std::string> output("o",
                                   cl::desc("Output file (default -: standard "
                                            "output; required for obj and "
                                            "exe)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::cat(codegen));
enum class Report { none, memory, comm };
static cl::opt<Report> report(
    "report",
    cl::desc("Print a report instead (of the training step with --train) "
             "(default none)"),
    cl::init(Report::none),
    cl::values(clEnumValN(Report::memory, "memory", "memory by category"),
               clEnumValN(Report::comm, "comm", "collectives and bytes")),
    cl::cat(inspection));
static cl::list<std::string> dumpAfter(
    "dump-after",
    cl::desc("Print the IR after these stages of the pipeline (pass names, "
             "comma-separated) to standard error (default: none)"),
    cl::value_desc("stage"), cl::CommaSeparated, cl::cat(inspection));

/// Writes `text` to the output (a temporary renamed on success).
static int writeOutput(function_ref<void(raw_ostream &)> write) {
  std::error_code ec;
  ToolOutputFile out(output, ec, sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  write(out.os());
  out.os().flush();
  if (out.os().has_error())
    return fail("cannot write '" + output + "'");
  out.keep();
  return 0;
}

/// The features the host enables, as -mattr takes them. The CPU's name
/// alone is not enough: a virtual machine may hide features of its CPU model
/// (AVX-512 on this project's AMD EPYC machines), and code for them stops
/// the program with SIGILL.
static std::string hostFeatures() {
  SubtargetFeatures features;
  for (const auto &f : sys::getHostCPUFeatures())
    features.AddFeature(f.getKey(), f.getValue());
  return features.getString();
}

static int emitObject(llvm::Module &module, StringRef path) {
  std::string error;
  std::string triple = sys::getDefaultTargetTriple();
  const Target *t = TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return fail("no target for " + triple + ": " + error);
  std::unique_ptr<TargetMachine> machine(
      t->createTargetMachine(triple, sys::getHostCPUName(), hostFeatures(),
                             TargetOptions(), Reloc::PIC_));
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  std::error_code ec;
  ToolOutputFile out(path, ec, sys::fs::OF_None);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, out.os(), nullptr,
                                   CodeGenFileType::ObjectFile))
    return fail("the target cannot emit an object file");
  pm.run(module);
  out.keep();
  return 0;
}

/// What a program for `target` is linked with (LinkConfig.h), or null when
/// this build has no such backend.
static const char *linkInputs(Backend target) {
  if (target == Backend::cpu)
    return SEQPAR_LINK_INPUTS_CPU;
#ifdef SEQPAR_LINK_INPUTS_CUDA
  if (target == Backend::cuda)
    return SEQPAR_LINK_INPUTS_CUDA;
#endif
#ifdef SEQPAR_LINK_INPUTS_CUDA_EMU
  if (target == Backend::cuda_emu)
    return SEQPAR_LINK_INPUTS_CUDA_EMU;
#endif
  return nullptr;
}

static int link(StringRef object, StringRef exe) {
  std::string compiler = SEQPAR_CXX_COMPILER;
  SmallVector<std::string> args{compiler, object.str(), "-o", exe.str()};
  SmallVector<StringRef> inputs;
  StringRef(linkInputs(target)).split(inputs, ';', -1, false);
  for (StringRef i : inputs)
    args.push_back(i.str());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string error;
  int rc =
      sys::ExecuteAndWait(compiler, argRefs, std::nullopt, {}, 0, 0, &error);
  if (rc != 0)
    return fail("linking '" + exe + "' with " + compiler + " failed" +
                (error.empty() ? "" : ": " + error));
  return 0;
}

/// The values of the integer flags, set by checkFlags.
static int64_t tp, dp, cp, pp, zero, fuseChunks, microBatches;
static SmallVector<int64_t> ppLayers;

/// Parses an integer flag: plain decimal (an optional '-' and digits) within
/// int64, no hexadecimal or octal, no trailing text, no wrap-around.
static bool parseDecimal(StringRef flag, StringRef text, int64_t &value) {
  StringRef digits = text.starts_with("-") ? text.drop_front() : text;
  if (!digits.empty() && llvm::all_of(digits, isDigit) &&
      !text.getAsInteger(10, value))
    return true;
  fail("--" + flag + " must be a decimal integer within int64, got '" + text +
       "'");
  return false;
}

/// How the pipeline's validator names an option: by the flag that sets it.
static std::string flagName(StringRef option) {
  StringRef flag = option == "eps"                 ? "adam-eps"
                   : option == "sequence-parallel" ? "sp"
                                                   : option;
  return ("--" + flag).str();
}

/// Sets the pipeline's options from the flags (the integer flags parsed by
/// checkFlags).
static void setPipelineOptions(seqpar::PipelineOptions &options) {
  options.tp = tp;
  options.dp = dp;
  options.cp = cp;
  options.pp = pp;
  options.ppLayers = ppLayers;
  options.cpAttention = cpAttention.getValue();
  options.sequenceParallel = sp.getValue();
  options.train = train.getValue();
  options.optimizer = optimizerName.getValue();
  options.lr = lr.getValue();
  options.beta1 = beta1.getValue();
  options.beta2 = beta2.getValue();
  options.eps = adamEps.getValue();
  options.weightDecay = weightDecay.getValue();
  options.gradClip = gradClip.getValue();
  options.zero = zero;
  options.microBatches = microBatches;
  options.gradReduceDtype = gradReduceDtype.getValue();
  options.masterWeights = masterWeights.getValue();
  options.overlapGradReductions = overlapGradReductions.getNumOccurrences()
                                      ? overlapGradReductions.getValue()
                                      : target != Backend::cpu;
  options.storageGemms = storageGemms.getValue();
  options.storageElementwise = storageElementwise.getValue();
  options.storageRows = storageRows.getValue();
  options.storageAttention = storageAttention.getValue();
  options.recompute = recompute.getValue();
  options.precision = precision.getValue();
  options.fuseChunks = fuseChunks;
  options.fuseElementwise = fuseElementwise.getValue();
  options.fuseEpilogues = fuseEpilogues.getValue();
  options.saveAttentionStats = saveAttentionStats.getValue();
  // A report reads the planned program (the pipeline of --emit mlir).
  options.lowerToRuntime = emit != Emit::mlir && report == Report::none;
}

/// The integer flags parsed, the pipeline's options checked by its
/// validator (naming the flags), and flags the options make meaningless
/// refused; otherwise an error naming the flag (exit code 1).
static int checkFlags() {
  if (!parseDecimal("tp", tpFlag, tp) || !parseDecimal("dp", dpFlag, dp) ||
      !parseDecimal("cp", cpFlag, cp) || !parseDecimal("pp", ppFlag, pp) ||
      !parseDecimal("zero", zeroFlag, zero) ||
      !parseDecimal("micro-batches", microBatchesFlag, microBatches) ||
      !parseDecimal("fuse-chunks", fuseChunksFlag, fuseChunks))
    return 1;
  for (const std::string &text : ppLayersFlag)
    if (!parseDecimal("pp-layers", text, ppLayers.emplace_back()))
      return 1;
  seqpar::PipelineOptions options;
  setPipelineOptions(options);
  if (std::optional<std::string> error =
          seqpar::checkPipelineOptions(options, train, flagName))
    return fail(*error);
  if (zero == 1 && dp == 1 && cp == 1)
    return fail("--zero 1 needs --dp > 1 or --cp > 1 (it shards the "
                "optimizer state over dp x cp)");
  // The optimizer's flags mean nothing to a forward-only program, AdamW's
  // to SGD, and the master weights' placement without ZeRO-1.
  for (const cl::Option *flag :
       {static_cast<const cl::Option *>(&optimizerName),
        static_cast<const cl::Option *>(&lr),
        static_cast<const cl::Option *>(&beta1),
        static_cast<const cl::Option *>(&beta2),
        static_cast<const cl::Option *>(&adamEps),
        static_cast<const cl::Option *>(&weightDecay),
        static_cast<const cl::Option *>(&gradClip),
        static_cast<const cl::Option *>(&masterWeights),
        static_cast<const cl::Option *>(&overlapGradReductions)})
    if (flag->getNumOccurrences() && !train)
      return fail("--" + flag->ArgStr + " needs --train");
  for (const cl::Option *flag : {static_cast<const cl::Option *>(&beta1),
                                 static_cast<const cl::Option *>(&beta2),
                                 static_cast<const cl::Option *>(&adamEps)})
    if (flag->getNumOccurrences() &&
        optimizerName != seqpar::OptimizerKind::adamw)
      return fail("--" + flag->ArgStr + " needs --optimizer adamw (" +
                  seqpar::stringifyEnum(optimizerName.getValue()) +
                  " has no moments)");
  return 0;
}

/// With --dump-after: has `pm` print the IR after each named stage (the
/// argument of a pass it runs) to standard error, as
/// --mlir-print-ir-after does: a "// -----// IR Dump After ..." comment line
/// and the module. A name that is not a stage of this pipeline is an error
/// listing those that are.
static int enableDumpAfter(mlir::PassManager &pm) {
  if (dumpAfter.empty())
    return 0;
  SmallVector<std::string> stages;
  for (mlir::Pass &pass : pm.getPasses())
    if (!llvm::is_contained(stages, pass.getArgument().str()))
      stages.push_back(pass.getArgument().str());
  for (const std::string &stage : dumpAfter)
    if (!llvm::is_contained(stages, stage))
      return fail("--dump-after: '" + stage +
                  "' is not a stage of this pipeline; its stages are: " +
                  join(stages, ", "));
  auto never = [](mlir::Pass *, mlir::Operation *) { return false; };
  auto named = [](mlir::Pass *pass, mlir::Operation *) {
    return llvm::is_contained(dumpAfter, pass->getArgument().str());
  };
  pm.enableIRPrinting(never, named, /*printModuleScope=*/false,
                      /*printAfterOnlyOnChange=*/false,
                      /*printAfterOnlyOnFailure=*/false, errs());
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerDefaultTimingManagerCLOptions();
  seqpar::addToCategory(inspection, {"mlir-timing", "mlir-timing-display"});
  seqpar::describe("mlir-timing", "On stderr, the time of parsing, of each "
                                  "pass and of the output (default off)");
  seqpar::describe("mlir-timing-display",
                   "How --mlir-timing shows it (default list)");
  seqpar::showOnlyCategories({&parallelism, &training, &codegen, &inspection});
  cl::ParseCommandLineOptions(
      argc, argv, "seqpar: model IR -> sequence-parallel program\n");
  std::string repeated = seqpar::repeatedOptionError(
      {&parallelism, &training, &codegen, &inspection});
  if (!repeated.empty())
    return fail(repeated);
  if (int rc = checkFlags())
    return rc;
  if (!linkInputs(target))
    return fail(target == Backend::cuda_emu
                    ? "--target cuda-emu is not available: this build of "
                      "seqpar found no CUDA headers (runtime/cuda-emu)"
                    : "--target cuda is not available: this build of seqpar "
                      "found no CUDA toolkit (configure with CUDA installed, "
                      "-DSEQPAR_ENABLE_CUDA=ON)");
  if ((emit == Emit::exe || emit == Emit::obj) && report == Report::none &&
      output == "-")
    return fail("-o is required for --emit " +
                Twine(emit == Emit::exe ? "exe" : "obj"));
  if (input != "-" && output != "-" && sys::fs::equivalent(input, output))
    return fail("-o '" + output +
                "' is the input model: the output would replace it");

  mlir::DialectRegistry registry;
  seqpar::registerAllDialects(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::MLIRContext context(registry);
  // A diagnostic names the op and its location; a dump of the op (a whole
  // function, for one at a function) would bury it.
  context.printOpOnDiagnostic(false);

  // Timers for each step; the report is printed when `timingManager` goes.
  mlir::DefaultTimingManager timingManager;
  mlir::applyDefaultTimingManagerCLOptions(timingManager);
  mlir::TimingScope timing = timingManager.getRootScope();
  mlir::TimingScope parseTiming = timing.nest("Parse");

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  auto file = MemoryBuffer::getFileOrSTDIN(input, /*IsText=*/true);
  if (!file)
    return fail("cannot read '" + input + "': " + file.getError().message());
  sourceMgr.AddNewSourceBuffer(std::move(*file), SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("'" + input + "' is not a valid tfm model");
  parseTiming.stop();

  // The pipeline comes from lib/Pipelines, as sp-opt's
  // --sp-inference-pipeline and --sp-train-pipeline do.
  seqpar::PipelineOptions options;
  setPipelineOptions(options);
  mlir::PassManager pm(&context);
  pm.enableTiming(timing);
  if (report != Report::none) {
    // The report reads the program sp-compile builds, up to and including
    // its arena plan (the pipeline of --emit mlir): the partitioned forward
    // or, with --train, the training step, fused and planned as it runs.
    // The report pass writes its JSON to a file; keep it for -o.
    seqpar::buildPipeline(pm, options);
    SmallString<128> tmp;
    if (std::error_code ec =
            sys::fs::createTemporaryFile("sp-report", "json", tmp))
      return fail("cannot create a temporary report file: " + ec.message());
    seqpar::dist::SpReportPassOptions reportOptions;
    reportOptions.memory = report == Report::memory;
    reportOptions.comm = report == Report::comm;
    reportOptions.output = tmp.str().str();
    pm.addPass(seqpar::dist::createSpReportPass(reportOptions));
    if (int rc = enableDumpAfter(pm)) {
      sys::fs::remove(tmp);
      return rc;
    }
    if (failed(pm.run(*module))) {
      sys::fs::remove(tmp);
      return 1;
    }
    auto json = MemoryBuffer::getFile(tmp);
    sys::fs::remove(tmp);
    if (!json)
      return fail("the report could not be read back");
    return writeOutput([&](raw_ostream &os) { os << (*json)->getBuffer(); });
  }
  seqpar::buildPipeline(pm, options);
  if (int rc = enableDumpAfter(pm))
    return rc;
  if (failed(pm.run(*module)))
    return 1;
  if (emit == Emit::mlir) {
    mlir::TimingScope outputTiming = timing.nest("Output");
    return writeOutput([&](raw_ostream &os) { module->print(os); });
  }

  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  LLVMContext llvmContext;
  mlir::TimingScope translateTiming = timing.nest("Translate to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext, "seqpar");
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  translateTiming.stop();
  mlir::TimingScope outputTiming =
      timing.nest(emit == Emit::llvm ? "Output" : "Code generation");
  if (emit == Emit::llvm)
    return writeOutput(
        [&](raw_ostream &os) { llvmModule->print(os, nullptr); });
  if (emit == Emit::obj)
    return emitObject(*llvmModule, output);

  SmallString<128> object;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("seqpar-step", "o", object))
    return fail("cannot create a temporary object file: " + ec.message());
  int rc = emitObject(*llvmModule, object);
  outputTiming.stop();
  if (rc == 0) {
    mlir::TimingScope linkTiming = timing.nest("Link");
    rc = link(object, output);
  }
  sys::fs::remove(object);
  return rc;
}

//===- sp-import.cpp - Hugging Face config.json to tfm IR -----------------===//
//
//   sp-import --hf-config config.json [--seq-len N] [--batch B]
//             [--dtype f32|bf16|f16] [-o model.mlir]
//
//===----------------------------------------------------------------------===//

#include "seqpar/Import/HFImport.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

static cl::opt<std::string> configPath("hf-config", cl::Required,
                                       cl::desc("Hugging Face config.json"),
                                       cl::value_desc("file"));
static cl::opt<int64_t>
    seqLen("seq-len",
           cl::desc("Sequence length (default: the config's maximum "
                    "positions)"),
           cl::init(0));
static cl::opt<int64_t> batch("batch", cl::desc("Micro-batch size"),
                              cl::init(1));
static cl::opt<std::string>
    dtype("dtype", cl::desc("Element type: f32, bf16 or f16"), cl::init("f32"));
static cl::opt<std::string> output("o", cl::desc("Output file (default: -)"),
                                   cl::value_desc("file"), cl::init("-"));

static int fail(const Twine &message) {
  WithColor::error(errs(), "sp-import") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "seqpar: Hugging Face config.json -> tfm IR\n");

  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFileOrSTDIN(configPath, /*IsText=*/true);
  if (!file)
    return fail("cannot read '" + configPath +
                "': " + file.getError().message());

  mlir::MLIRContext context;
  seqpar::HFImportOptions options;
  options.seqLen = seqLen;
  options.batch = batch;
  options.dtype = dtype;
  options.source = configPath;
  auto module = seqpar::importHFConfig((*file)->getBuffer(), options, &context);
  if (!module)
    return fail(toString(module.takeError()));

  // The model is complete before the file is opened, and ToolOutputFile
  // removes the file unless keep() is reached (also on a signal).
  std::error_code ec;
  ToolOutputFile out(output, ec, sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  // Locations name the Hugging Face module of every op (layer reports and
  // diagnostics use them), so they are part of the output.
  (**module)->print(out.os(), mlir::OpPrintingFlags().enableDebugInfo());
  out.os() << "\n";
  out.os().flush();
  if (out.os().has_error())
    return fail("cannot write '" + output + "'");
  out.keep();
  return 0;
}

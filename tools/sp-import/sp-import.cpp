//===- sp-import.cpp - Hugging Face config.json to tfm IR -----------------===//
//
//   sp-import --hf-config config.json [--seq-len N] [--batch B]
//             [--dtype f32|bf16|f16] [-o model.mlir]
//
// --help shows sp-import's options only, grouped; --help-hidden adds LLVM's.
//
//===----------------------------------------------------------------------===//

#include "common/ToolHelp.h"
#include "seqpar/Import/HFImport.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

// --help shows these groups only (ToolHelp.h); LLVM's options are listed
// by --help-hidden.
static cl::OptionCategory modelOptions("Model");
static cl::OptionCategory outputOptions("Output");

static cl::opt<std::string> configPath("hf-config", cl::Required,
                                       cl::desc("Hugging Face config.json "
                                                "(required)"),
                                       cl::value_desc("file"),
                                       cl::cat(modelOptions));
// Numeric flags are strings parsed here, strictly: cl::opt<int64_t> takes
// "-5", octal "010" and hex "0x10", and words its errors its own way.
static cl::opt<std::string>
    seqLenFlag("seq-len",
               cl::desc("Sequence length (default: the config's maximum "
                        "positions)"),
               cl::value_desc("N"), cl::cat(modelOptions));
static cl::opt<std::string> batchFlag("batch",
                                      cl::desc("Micro-batch size (default 1)"),
                                      cl::value_desc("N"), cl::init("1"),
                                      cl::cat(modelOptions));
static cl::opt<std::string>
    dtype("dtype", cl::desc("Element type: f32, bf16 or f16 (default f32)"),
          cl::value_desc("type"), cl::init("f32"), cl::cat(modelOptions));
static cl::opt<std::string> output("o",
                                   cl::desc("Output file (default -: standard "
                                            "output)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::cat(outputOptions));

static int fail(const Twine &message) {
  WithColor::error(errs(), "sp-import") << message << "\n";
  return 1;
}

/// A positive decimal integer below 2^63, or an error naming the flag.
static Expected<int64_t> parsePositive(StringRef flag, StringRef text) {
  auto bad = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(), "--" + flag + " " + why);
  };
  StringRef digits = text;
  bool negative = digits.consume_front("-");
  if (digits.empty() || !llvm::all_of(digits, isDigit))
    return bad("must be a decimal integer, got '" + text + "'");
  if (negative || digits.find_first_not_of('0') == StringRef::npos)
    return bad("must be >= 1, got " + text);
  if (digits.front() == '0')
    return bad("must be written without leading zeros, got " + text);
  int64_t value;
  if (digits.getAsInteger(10, value))
    return bad("= " + text + " is out of range (at most 2^63-1)");
  return value;
}

/// A regular file (or "-", standard input) of at most kMaxConfigBytes. The
/// type is checked with stat before the file is opened, so a FIFO does not
/// block and a device is never read; at most the limit + 1 bytes are read, so
/// an endless input stops.
static Expected<std::string> readConfig(StringRef path) {
  auto cannot = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "cannot read '" + path + "': " + why);
  };
  auto notAFile = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "--hf-config '" + path + "'" +
                                 (path == "-" ? " (standard input)" : "") +
                                 " " + why);
  };
  const uint64_t limit = seqpar::kMaxConfigBytes;
  const std::string tooLarge = ("is more than " + Twine(limit >> 20) +
                                " MiB, the size limit of a config")
                                   .str();
  sys::fs::file_t fd = sys::fs::getStdinHandle();
  if (path != "-") {
    sys::fs::file_status st;
    if (std::error_code ec = sys::fs::status(path, st))
      return cannot(ec.message());
    switch (st.type()) {
    case sys::fs::file_type::regular_file:
      break;
    case sys::fs::file_type::directory_file:
      return notAFile("is a directory, not a regular file");
    case sys::fs::file_type::fifo_file:
      return notAFile("is a FIFO, not a regular file");
    case sys::fs::file_type::character_file:
      return notAFile("is a character device, not a regular file");
    case sys::fs::file_type::block_file:
      return notAFile("is a block device, not a regular file");
    case sys::fs::file_type::socket_file:
      return notAFile("is a socket, not a regular file");
    default:
      return notAFile("is not a regular file");
    }
    if (st.getSize() > limit)
      return notAFile(tooLarge);
    // Opened non-blocking and checked again through the descriptor, so a
    // file swapped for a FIFO or device after the stat is not read either.
    fd = ::open(path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
      return cannot(std::error_code(errno, std::generic_category()).message());
    struct stat opened;
    if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode) ||
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
      ::close(fd);
      return notAFile("is not a regular file");
    }
  }
  std::string text;
  char chunk[1 << 16];
  std::error_code readError;
  while (text.size() <= limit) {
    size_t want = std::min<uint64_t>(sizeof(chunk), limit + 1 - text.size());
    Expected<size_t> got =
        sys::fs::readNativeFile(fd, MutableArrayRef<char>(chunk, want));
    if (!got) {
      readError = errorToErrorCode(got.takeError());
      break;
    }
    if (*got == 0)
      break;
    text.append(chunk, *got);
  }
  if (path != "-")
    ::close(fd);
  if (readError)
    return cannot(readError.message());
  if (text.size() > limit)
    return notAFile(tooLarge);
  return text;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  seqpar::showOnlyCategories({&modelOptions, &outputOptions});
  cl::ParseCommandLineOptions(argc, argv,
                              "seqpar: Hugging Face config.json -> tfm IR\n");
  std::string repeated =
      seqpar::repeatedOptionError({&modelOptions, &outputOptions});
  if (!repeated.empty())
    return fail(repeated);
  if (configPath != "-" && output != "-" &&
      sys::fs::equivalent(configPath, output))
    return fail("-o '" + output +
                "' is the --hf-config file: the output would replace it");

  seqpar::HFImportOptions options;
  options.seqLen = 0;
  if (seqLenFlag.getNumOccurrences()) {
    Expected<int64_t> n = parsePositive("seq-len", seqLenFlag);
    if (!n)
      return fail(toString(n.takeError()));
    options.seqLen = *n;
  }
  Expected<int64_t> b = parsePositive("batch", batchFlag);
  if (!b)
    return fail(toString(b.takeError()));
  options.batch = *b;

  Expected<std::string> config = readConfig(configPath);
  if (!config)
    return fail(toString(config.takeError()));

  mlir::MLIRContext context;
  options.dtype = dtype;
  options.source = configPath;
  auto module = seqpar::importHFConfig(*config, options, &context);
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

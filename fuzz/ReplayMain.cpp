//===- ReplayMain.cpp - run a fuzz target on saved inputs ----------------===//
//
// main() for the replay drivers of the normal (non-libFuzzer) build: runs
// LLVMFuzzerTestOneInput once on every file named on the command line, and
// on every regular file directly inside a directory named there (in name
// order; subdirectories and dot files skipped). Prints how many inputs ran; a
// crash or a sanitizer finding in one of them ends the process as it would the
// fuzzer.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool replayFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    llvm::errs() << "replay: cannot read '" << path
                 << "': " << buffer.getError().message() << "\n";
    return false;
  }
  // A copy of exactly the file's bytes, so ASan sees reads past its end.
  std::vector<uint8_t> bytes((*buffer)->getBufferStart(),
                             (*buffer)->getBufferEnd());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return true;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: " << argv[0] << " FILE|DIR...\n";
    return 2;
  }
  unsigned count = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!llvm::sys::fs::is_directory(arg)) {
      if (!replayFile(arg))
        return 1;
      ++count;
      continue;
    }
    llvm::SmallVector<std::string> files;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(arg, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()) &&
          !llvm::sys::path::filename(it->path()).starts_with("."))
        files.push_back(it->path());
    if (ec) {
      llvm::errs() << "replay: cannot list '" << arg << "': " << ec.message()
                   << "\n";
      return 1;
    }
    llvm::sort(files);
    for (const std::string &file : files) {
      if (!replayFile(file))
        return 1;
      ++count;
    }
  }
  llvm::outs() << "replayed " << count << " inputs\n";
  return 0;
}

//===- ToolHelp.h - what --help of seqpar's tools shows ---------*- C++ -*-===//
//
// seqpar's tools link LLVM and MLIR, whose libraries register hundreds of
// command-line options of their own (code generation, debugging, ...). A
// tool's --help shows only its own options, grouped by their
// cl::OptionCategory, next to LLVM's generic ones (--help, --help-hidden,
// --version); every other option stays available and is listed by
// --help-hidden. This is cl::HideUnrelatedOptions, except that the options
// it hides become cl::Hidden rather than cl::ReallyHidden (which
// --help-hidden would not show either).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_COMMON_TOOLHELP_H
#define SEQPAR_TOOLS_COMMON_TOOLHELP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"

namespace seqpar {

/// Adds `category` to each registered option named in `names` (options
/// that a library registered, e.g. MLIR's --mlir-timing). A name that is
/// not registered is ignored.
inline void addToCategory(llvm::cl::OptionCategory &category,
                          llvm::ArrayRef<llvm::StringRef> names) {
  llvm::StringMap<llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  for (llvm::StringRef name : names) {
    auto it = options.find(name);
    if (it != options.end())
      it->second->addCategory(category);
  }
}

/// Sets the --help text of the registered option `name` (one a library
/// registered), if there is one. `text` must outlive the option.
inline void describe(llvm::StringRef name, llvm::StringRef text) {
  llvm::StringMap<llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it != options.end())
    it->second->setDescription(text);
}

/// Hides from --help every option outside `categories` and LLVM's generic
/// options; they stay in --help-hidden.
inline void showOnlyCategories(
    llvm::ArrayRef<const llvm::cl::OptionCategory *> categories) {
  llvm::StringMap<llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  llvm::DenseMap<llvm::cl::Option *, llvm::cl::OptionHidden> before;
  for (auto &entry : options)
    before[entry.second] = entry.second->getOptionHiddenFlag();
  llvm::cl::HideUnrelatedOptions(categories);
  for (auto &entry : options) {
    llvm::cl::Option *option = entry.second;
    if (option->getOptionHiddenFlag() == llvm::cl::ReallyHidden &&
        before.lookup(option) != llvm::cl::ReallyHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace seqpar

#endif // SEQPAR_TOOLS_COMMON_TOOLHELP_H

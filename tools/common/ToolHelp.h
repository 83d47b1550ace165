//===- ToolHelp.h - what --help of seqpar's tools shows ---------*- C++ -*-===//
//
// seqpar's tools link LLVM and MLIR, whose libraries register hundreds of
// command-line options of their own (code generation, debugging, ...). A
// tool's --help shows only its own options, grouped by their
// cl::OptionCategory, next to LLVM's generic ones (--help, --help-hidden,
// --version); every other option stays available and is listed by
// --help-hidden. This is cl::HideUnrelatedOptions, except that the options
// it hides become cl::Hidden rather than cl::ReallyHidden (which
// --help-hidden would not show either). repeatedOptionError() makes a tool's
// own option given twice an error (LLVM keeps the last value).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_TOOLS_COMMON_TOOLHELP_H
#define SEQPAR_TOOLS_COMMON_TOOLHELP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <string>

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

/// The error for an option of `categories` (a tool's own) given more than
/// once on the command line, e.g. "--tp is given more than once (give each
/// flag once)", or "" when there is none. LLVM keeps the last value of a
/// repeated cl::opt silently; a cl::list, whose values accumulate, may
/// repeat. Of several, the one whose last occurrence comes first.
inline std::string repeatedOptionError(
    llvm::ArrayRef<const llvm::cl::OptionCategory *> categories) {
  llvm::cl::Option *first = nullptr;
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    if (option->getNumOccurrences() < 2 || option->ArgStr.empty() ||
        option->getNumOccurrencesFlag() == llvm::cl::ZeroOrMore ||
        option->getNumOccurrencesFlag() == llvm::cl::OneOrMore)
      continue;
    bool own = llvm::any_of(option->Categories,
                            [&](const llvm::cl::OptionCategory *category) {
                              return llvm::is_contained(categories, category);
                            });
    if (own && (!first || option->getPosition() < first->getPosition()))
      first = option;
  }
  if (!first)
    return "";
  return (llvm::Twine(first->ArgStr.size() == 1 ? "-" : "--") + first->ArgStr +
          " is given more than once (give each flag once)")
      .str();
}

} // namespace seqpar

#endif // SEQPAR_TOOLS_COMMON_TOOLHELP_H

//===- Outputs.h - output paths, checked at start-up ------------*- C++ -*-===//
//-*-===//
//
// Every path a compiled program writes after its steps (the dumps, the
// Hugging Face export, the checkpoints) or while they run (the metrics log)
// is checked before the first step, so that a typo in a directory is an
// error at once instead of after the last step. The checks create, truncate
// or remove nothing: an existing path must be of the right kind and
// writable, and the directory the output is created in must exist and be
// writable. A --checkpoint-dir that holds another run's checkpoints is
// written into only with --resume or --overwrite-checkpoints.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_OUTPUTS_H
#define SPRT_DRIVER_OUTPUTS_H

#include "Flags.h"

#include <string>

namespace sprt {

/// Why the file `path`, given with `flag`, cannot be written, or "". An
/// existing `path` must be a regular file this process may write; the
/// directory it is in must be a directory this process may create files in
/// (when the file does not exist yet, or always when `replaced`: the file is
/// written as `path.tmp` there and renamed over it).
std::string outputFileProblem(const std::string &flag, const std::string &path,
                              bool replaced);

/// Why the directory `dir`, given with `flag`, cannot be written, or "". An
/// existing `dir` must be a directory this process may create files in; a
/// missing one must be creatable: its parent must be an existing, writable
/// directory (`createParents` false: the program makes one level), or the
/// nearest existing directory above it must be writable (`createParents`
/// true).
std::string outputDirProblem(const std::string &flag, const std::string &dir,
                             bool createParents);

/// Why this run may not write its checkpoints into `dir`, or "": a directory
/// that holds a checkpoint (a `latest` file or a step-N directory) is
/// another run's, continued with --resume (`resume`) or written over with
/// --overwrite-checkpoints (`overwrite`).
std::string checkpointOwnerProblem(const std::string &dir, bool resume,
                                   bool overwrite);

/// The first problem of the output paths rank 0 writes: --log (appended to
/// when `flags.resume`), --dump-params, --dump-outputs, --dump-grads,
/// --export-hf and --checkpoint-dir (with its owner); "" when none.
std::string outputsProblem(const Flags &flags);

} // namespace sprt

#endif // SPRT_DRIVER_OUTPUTS_H

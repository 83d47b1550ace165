//===- Outputs.cpp - a program's output paths, checked at start-up --------===//

#include "Outputs.h"

#include "FileIO.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sprt;

/// `path` without trailing slashes ("/" stays).
static std::string trimSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/')
    path.pop_back();
  return path;
}

/// The directory `path` (without trailing slashes) is in.
static std::string parentOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : trimSlashes(path.substr(0, slash));
}

/// Why no file can be created in the directory `dir`, or "". With
/// `nearest`, a missing `dir` would be created: the nearest existing
/// directory above it is checked instead.
static std::string dirProblem(std::string dir, bool nearest) {
  for (;;) {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return "'" + dir + "' is not a directory";
      if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return "cannot create files in '" + dir + "': " + std::strerror(errno);
      return "";
    }
    int err = errno;
    bool missing = err == ENOENT || err == ENOTDIR;
    if (!missing || !nearest || dir == "." || dir == "/")
      return err == ENOENT ? "'" + dir + "' does not exist"
                           : "'" + dir + "': " + std::strerror(err);
    dir = parentOf(dir);
  }
}

std::string sprt::outputFileProblem(const std::string &flag,
                                    const std::string &path, bool replaced) {
  if (path.empty())
    return flag + " needs a file, got ''";
  std::string cannot = flag + ": cannot write '" + path + "': ";
  if (path.back() == '/')
    return cannot + "it names a directory, not a file";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    std::string why = notRegularFile(path);
    if (!why.empty())
      return cannot + why;
    if (::access(path.c_str(), W_OK) != 0)
      return cannot + std::strerror(errno);
    if (!replaced)
      return "";
  }
  std::string why = dirProblem(parentOf(path), false);
  return why.empty() ? "" : cannot + why;
}

std::string sprt::outputDirProblem(const std::string &flag,
                                   const std::string &dir, bool createParents) {
  if (dir.empty())
    return flag + " needs a directory, got ''";
  std::string trimmed = trimSlashes(dir);
  struct stat st;
  if (::stat(trimmed.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return flag + ": '" + dir + "' is not a directory";
    if (::access(trimmed.c_str(), W_OK | X_OK) != 0)
      return flag + ": cannot write in '" + dir + "': " + std::strerror(errno);
    return "";
  }
  std::string why = dirProblem(parentOf(trimmed), createParents);
  return why.empty() ? "" : flag + ": cannot create '" + dir + "': " + why;
}

/// Whether `name` is a checkpoint's step directory name, step-<digits>.
static bool isStepName(const std::string &name) {
  return name.size() > 5 && name.compare(0, 5, "step-") == 0 &&
         std::all_of(name.begin() + 5, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::string sprt::checkpointOwnerProblem(const std::string &dir, bool resume,
                                         bool overwrite) {
  if (resume || overwrite)
    return "";
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return "";
  bool latest = false;
  std::vector<std::string> steps;
  while (const dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "latest")
      latest = true;
    else if (isStepName(name))
      steps.push_back(name);
  }
  ::closedir(d);
  if (!latest && steps.empty())
    return "";
  std::sort(steps.begin(), steps.end());
  std::string held = latest ? "'latest'" : "";
  // The last few step directories, the newest last.
  size_t first = steps.size() > 3 ? steps.size() - 3 : 0;
  if (first)
    held += std::string(held.empty() ? "" : ", ") + "...";
  for (size_t i = first; i < steps.size(); ++i)
    held += (held.empty() ? "" : ", ") + steps[i];
  return "--checkpoint-dir '" + dir + "' already holds another run's " +
         "checkpoints (" + held +
         "): give --resume to continue from them or "
         "--overwrite-checkpoints to write this run's over them";
}

/// What identifies the file `path` names: its device and inode when it
/// exists, else the real path of its directory and its name (as given when
/// that directory does not exist either).
static std::string fileIdentity(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    return "inode " + std::to_string(st.st_dev) + ":" +
           std::to_string(st.st_ino);
  std::string trimmed = trimSlashes(path);
  char real[PATH_MAX];
  if (!::realpath(parentOf(trimmed).c_str(), real))
    return "path " + trimmed;
  size_t slash = trimmed.rfind('/');
  return "path " + std::string(real) + "/" +
         (slash == std::string::npos ? trimmed : trimmed.substr(slash + 1));
}

std::string sprt::outputsProblem(const Flags &f) {
  struct Named {
    const char *flag;
    const std::string &path;
  };
  // Written in place (the log, appended to on --resume), or through
  // PATH.tmp renamed over PATH (the dumps).
  const Named files[] = {{"--log", f.log},
                         {"--dump-params", f.dumpParams},
                         {"--dump-outputs", f.dumpOutputs},
                         {"--dump-grads", f.dumpGrads}};
  const Named inputs[] = {{"--data", f.data},
                          {"--valid-data", f.validData},
                          {"--init-from", f.initFrom}};
  for (size_t i = 0; i < std::size(files); ++i) {
    const Named &out = files[i];
    if (out.path.empty())
      continue;
    std::string problem =
        outputFileProblem(out.flag, out.path, out.flag != std::string("--log"));
    if (!problem.empty())
      return problem;
    std::string id = fileIdentity(out.path);
    for (size_t j = 0; j < i; ++j)
      if (!files[j].path.empty() && fileIdentity(files[j].path) == id)
        return std::string(files[j].flag) + " and " + out.flag +
               " name the same file '" + out.path + "'";
    // A dump may replace the --init-from file it was loaded from (read
    // before the steps); nothing may replace the data or truncate an input.
    for (const Named &in : inputs)
      if (!in.path.empty() && fileIdentity(in.path) == id &&
          (in.flag != std::string("--init-from") ||
           out.flag == std::string("--log")))
        return std::string(out.flag) + " '" + out.path + "' is the " + in.flag +
               " file: the output would replace the input";
  }
  if (!f.exportHf.empty()) {
    // Written as DIR.tmp-export (its parents created) and renamed to DIR,
    // an earlier export moved aside as DIR.old-export: all next to DIR.
    std::string why = dirProblem(parentOf(trimSlashes(f.exportHf)), true);
    if (!why.empty())
      return "--export-hf: cannot write '" + f.exportHf + "': " + why;
  }
  if (!f.checkpointDir.empty()) {
    // The first save creates the directory (one level).
    std::string problem =
        outputDirProblem("--checkpoint-dir", f.checkpointDir, false);
    if (problem.empty())
      problem = checkpointOwnerProblem(f.checkpointDir, f.resume,
                                       f.overwriteCheckpoints);
    if (!problem.empty())
      return problem;
  }
  return "";
}

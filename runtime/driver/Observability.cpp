//===- Observability.cpp - --trace, --peak-flops and throughput -----------===//

#include "Observability.h"

#include "FileIO.h"
#include "Trace.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace sprt;

static bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string sprt::traceFile(const std::string &trace, int rank) {
  std::string tag = ".rank" + std::to_string(rank);
  if (trace.back() == '/' || isDirectory(trace))
    return trace + (trace.back() == '/' ? "" : "/") + "trace" + tag + ".json";
  size_t slash = trace.rfind('/');
  size_t base = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = trace.rfind('.');
  // A leading dot (".trace") is a name, not an extension.
  if (dot == std::string::npos || dot <= base)
    return trace + tag + ".json";
  return trace.substr(0, dot) + tag + trace.substr(dot);
}

std::string sprt::traceFileProblem(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  if (!isDirectory(dir))
    return "cannot write the trace '" + path + "': '" + dir +
           "' is not a directory";
  if (::access(dir.c_str(), W_OK) != 0)
    return "cannot write the trace '" + path + "': '" + dir +
           "': " + std::strerror(errno);
  if (isDirectory(path))
    return "cannot write the trace '" + path + "': it is a directory";
  return "";
}

bool sprt::writeTrace(const std::string &path, std::string &error) {
  return writeFileAtomically(path, traceJson(), error);
}

Throughput sprt::throughput(const Model &model, double seconds,
                            double peakFlops) {
  Throughput t;
  if (!(seconds > 0))
    return t;
  t.tokensPerSecond = double(model.batch) * double(model.microBatches) *
                      double(model.seq) / seconds;
  t.flopsPerSecond = double(model.flopsPerStep) / seconds;
  if (peakFlops > 0) {
    t.hfu = t.flopsPerSecond / peakFlops;
    t.mfu = double(model.flopsPerStep - model.recomputeFlopsPerStep) / seconds /
            peakFlops;
  }
  return t;
}

/// `v` with an SI prefix and three significant digits: "1.23k", "45.6G".
static std::string si(double v) {
  static const char *prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (std::fabs(v) >= 999.5 && p < 6) {
    v /= 1000;
    ++p;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%s", v, prefixes[p]);
  return buf;
}

std::string sprt::throughputText(const Throughput &t) {
  std::string text =
      si(t.tokensPerSecond) + " tok/s, " + si(t.flopsPerSecond) + "FLOP/s/rank";
  if (t.mfu >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, ", MFU %.2f%%", t.mfu * 100);
    text += buf;
  }
  return text;
}

std::string sprt::throughputJson(const Throughput &t) {
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return std::string(buf);
  };
  std::string json = ", \"tokens_per_s\": " + number(t.tokensPerSecond) +
                     ", \"flops_per_s\": " + number(t.flopsPerSecond);
  if (t.mfu >= 0)
    json += ", \"mfu\": " + number(t.mfu) + ", \"hfu\": " + number(t.hfu);
  return json;
}

//===- Workspace.cpp - caller-provided workspaces, checked ----------------===//

#include "Workspace.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

using namespace sprt;

namespace {
std::mutex &useMutex() {
  static std::mutex m;
  return m;
}
WorkspaceUse &use() {
  static WorkspaceUse u;
  return u;
}
} // namespace

char *sprt::takeWorkspace(const char *op, const char *fn, void *data,
                          int64_t given, int64_t need) {
  if (need < 0)
    throw std::invalid_argument(std::string("sprt: dist.") + op + " (" + fn +
                                ") computed a negative workspace of " +
                                std::to_string(need) + " bytes");
  if (given < need || (need > 0 && !data))
    throw std::invalid_argument(std::string("sprt: dist.") + op + " (" + fn +
                                ") needs a workspace of " +
                                std::to_string(need) + " bytes, was given " +
                                (data || given == 0
                                     ? std::to_string(given) + " bytes"
                                     : "none (a null pointer)"));
  if (need > 0) {
    std::lock_guard<std::mutex> lock(useMutex());
    WorkspaceUse &u = use();
    u.most = std::max(u.most, need);
    int64_t &mostOfOp = u.byOp[op];
    mostOfOp = std::max(mostOfOp, need);
  }
  return static_cast<char *>(data);
}

WorkspaceUse sprt::workspaceUse() {
  std::lock_guard<std::mutex> lock(useMutex());
  return use();
}

void sprt::resetWorkspaceUse() {
  std::lock_guard<std::mutex> lock(useMutex());
  use() = WorkspaceUse();
}

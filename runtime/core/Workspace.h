//===- Workspace.h - caller-provided workspaces, checked --------*- C++ -*-===//
//
// The memory a kernel needs beyond its operands and results (the fused
// collective GEMMs' chunk buffers, the coalesced collectives' buckets, the
// pack / unpack buffers of a collective on a strided dimension) is planned
// by the compiler in the arena (WorkspaceOpInterface, sp-plan-buffers) and
// passed to the runtime call as (workspace, workspace_bytes). The kernel
// computes what it needs for itself, checks that it was given at least that
// much, and uses it: the runtime holds no pool of its own. What each call
// needed is measured here (the largest per op and overall), so that the
// plan and the measurement can be compared.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_WORKSPACE_H
#define SPRT_CORE_WORKSPACE_H

#include <cstdint>
#include <map>
#include <string>

namespace sprt {

/// `data`, the workspace of a call of the dist op `op` (e.g.
/// "all_gather_matmul", made by the runtime function `fn`) that needs `need`
/// bytes and was given `given`; records `need` (workspaceUse). Throws
/// std::invalid_argument naming the op, the function and both sizes when
/// `given` is smaller than `need` or `data` is null while `need` > 0.
char *takeWorkspace(const char *op, const char *fn, void *data, int64_t given,
                    int64_t need);

/// The most workspace bytes any call needed, overall and per dist op (ops
/// that needed none are not listed).
struct WorkspaceUse {
  int64_t most = 0;
  std::map<std::string, int64_t> byOp;
};
WorkspaceUse workspaceUse();
/// Forgets what was measured (tests).
void resetWorkspaceUse();

} // namespace sprt

#endif // SPRT_CORE_WORKSPACE_H

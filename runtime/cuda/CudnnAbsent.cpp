//===- CudnnAbsent.cpp - the cuDNN graphs of a build without cuDNN --------===//
//
// CudnnGraphs.h where the build found no cuDNN or cudnn-frontend
// (cmake/SeqparCuda.cmake): every call answers why, and the attention calls
// keep the native kernels.
//
//===----------------------------------------------------------------------===//

#include "CudnnGraphs.h"

namespace sprt::cuda::cudnn {

static const char *kWhy =
    "this build has no cuDNN (cudnn.h and cudnn-frontend were not found when "
    "it was configured; scripts/install-deps.sh fetches cudnn-frontend)";

bool Shape::operator==(const Shape &o) const {
  return B == o.B && heads == o.heads && kvHeads == o.kvHeads && Sq == o.Sq &&
         Sk == o.Sk && D == o.D && io == o.io && mask == o.mask &&
         rightBound == o.rightBound && dropout == o.dropout;
}
std::string Shape::describe() const { return {}; }
const std::string &load() {
  static const std::string why = kWhy;
  return why;
}
std::string version() { return {}; }
std::string prepareForward(const Shape &) { return kWhy; }
std::string prepareBackward(const Shape &) { return kWhy; }
std::string forward(const Shape &, const Tensors &, cudaStream_t, WorkspaceFn) {
  return kWhy;
}
std::string backward(const Shape &, const Tensors &, cudaStream_t,
                     WorkspaceFn) {
  return kWhy;
}
int64_t planCount() { return 0; }
int64_t largestWorkspace() { return 0; }

} // namespace sprt::cuda::cudnn

//===- SprtEmuCudnn.h - cuDNN's SDPA graphs run on the emulator -*- C++ -*-===//
//
// The deviceless build of runtime/cuda/CudnnGraphs.cpp (the emulator's:
// SPRT_CUDNN_DEVICELESS) has the real libcudnn check each graph for an
// H100 but no GPU to run its plans; it runs them here instead
// (lib/Cudnn.cpp), as cuDNN's documentation defines the graph.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_EMU_CUDNN_H
#define SPRT_EMU_CUDNN_H

#include "CudnnGraphs.h"

namespace sprt_emu {

/// Runs the forward (or backward) SDPA graph of `shape` on `t`'s tensors as
/// `stream`'s work (recorded while it is captured). cudaErrorInvalidValue,
/// said on stderr, where a tensor the graph reads or writes is not device
/// memory.
cudaError_t sdpa(const sprt::cuda::cudnn::Shape &shape, bool backward,
                 const sprt::cuda::cudnn::Tensors &t, cudaStream_t stream);

} // namespace sprt_emu

#endif // SPRT_EMU_CUDNN_H

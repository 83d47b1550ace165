//===- AttentionKernel.h - which attention kernel a program runs -*- C++
//-*-===//

#ifndef SPRT_DRIVER_ATTENTIONKERNEL_H
#define SPRT_DRIVER_ATTENTIONKERNEL_H

#include "Model.h"

namespace sprt {

/// Chooses the backend's attention kernel for the model's precision
/// (sprt_attention_select), as the environment's SEQPAR_ATTENTION_KERNEL
/// asks (cudnn, native or auto; unset: auto), and says which on rank 0's
/// stderr. After sprt_device_init, before the first step.
void selectAttentionKernel(const Model &model);

/// Readies each of the step's attentions (the model's `attention`, of this
/// rank's pipeline stage) on the kernel selected: sprt_op_attention_prepare,
/// a ring's sprt_op_ring_attention_prepare; `packedDocuments`: the data's
/// position ids restart at each packed document (--pack-documents).
/// After the mesh and Model::selectStage, before the memory-fit check (which
/// then sees what it allocated).
void prepareAttention(const Model &model, bool packedDocuments);

} // namespace sprt

#endif // SPRT_DRIVER_ATTENTIONKERNEL_H

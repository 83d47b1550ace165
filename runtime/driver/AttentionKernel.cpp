//===- AttentionKernel.cpp - which attention kernel a program runs --------===//

#include "AttentionKernel.h"
#include "Comm.h"

#include "sprt/device.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace sprt;

void sprt::selectAttentionKernel(const Model &model) {
  // Programs from before the JSON gave a precision compute in f32.
  const DType precision = model.hasPrecision ? model.precisionType : DType::F32;
  const int32_t code = precision == DType::BF16  ? SPRT_DTYPE_BF16
                       : precision == DType::F16 ? SPRT_DTYPE_F16
                                                 : SPRT_DTYPE_F32;
  const char *request = std::getenv("SEQPAR_ATTENTION_KERNEL");
  const char *line = sprt_attention_select(code, request);
  // The cpu backend has one kernel: said only when a choice was asked for.
  const bool choice = request || std::strcmp(sprt_backend_name(), "cpu") != 0;
  if (World::rank() == 0 && choice) {
    std::fprintf(stderr, "attention: %s\n", line);
    std::fflush(stderr);
  }
}

void sprt::prepareAttention(const Model &model, bool packedDocuments) {
  for (const AttentionShape &a : model.attention)
    (a.ring ? sprt_op_ring_attention_prepare : sprt_op_attention_prepare)(
        &a.args, a.backward ? 1 : 0, packedDocuments ? 1 : 0);
}

//===- AttentionKernel.cpp - which attention kernel a program runs --------===//

#include "AttentionKernel.h"
#include "Comm.h"

#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>

using namespace sprt;

void sprt::selectAttentionKernel(const Model &model) {
  // Programs from before the JSON gave a precision compute in f32.
  const DType precision = model.hasPrecision ? model.precisionType : DType::F32;
  const int32_t code = precision == DType::BF16  ? SPRT_DTYPE_BF16
                       : precision == DType::F16 ? SPRT_DTYPE_F16
                                                 : SPRT_DTYPE_F32;
  const char *line =
      sprt_attention_select(code, std::getenv("SEQPAR_ATTENTION_KERNEL"));
  if (World::rank() == 0) {
    std::fprintf(stderr, "attention: %s\n", line);
    std::fflush(stderr);
  }
}

//===- TypedEmbedding.cpp - the embedding and its gradient as stored ------===//
//
// sprt_embedding_typed copies each looked-up row as stored (zeros for ids
// outside this rank's vocabulary). sprt_embedding_grad_typed groups the
// tokens by their row, stably (a counting sort: each row's tokens stay in
// token order), and sums each row's widened dy rows in f32 in that order, as
// sprt_embedding_grad_f32 adds them into a zeroed row, then rounds the row
// once into dtable's type: bit for bit the f32 kernel between conversions.
//
//===----------------------------------------------------------------------===//

#include "RowOps.h"
#include "Scratch.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cstring>

using namespace sprt::cpu;

namespace {

/// The bytes of one element of SPRT_DTYPE_* `dtype`; an unknown code aborts
/// (sprt_convert's check) before anything is written.
size_t elementBytes(int32_t dtype) {
  sprt_convert(nullptr, dtype, nullptr, SPRT_DTYPE_F32, 0);
  return dtype == SPRT_DTYPE_F32 ? 4 : 2;
}

} // namespace

extern "C" {

void sprt_embedding_typed(const int64_t *ids, const void *table, void *y,
                          int64_t T, int64_t V, int64_t H, int64_t vocab_offset,
                          int32_t dtype) {
  const size_t rowBytes = size_t(H > 0 ? H : 0) * elementBytes(dtype);
  const char *src = static_cast<const char *>(table);
  char *dst = static_cast<char *>(y);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t r = ids[t] - vocab_offset;
    if (r >= 0 && r < V)
      std::memcpy(dst + t * rowBytes, src + r * rowBytes, rowBytes);
    else
      std::memset(dst + t * rowBytes, 0, rowBytes); // +0 in every type
  }
}

void sprt_embedding_grad_typed(const int64_t *ids, const void *dy,
                               int32_t dy_dtype, void *dtable,
                               int32_t dtable_dtype, int64_t T, int64_t V,
                               int64_t H, int64_t vocab_offset) {
  const size_t outBytes = elementBytes(dtable_dtype);
  elementBytes(dy_dtype);
  if (V <= 0 || H <= 0)
    return;
  // first[r] .. first[r + 1]: row r's tokens, in token order, in `order`.
  ScratchVector<int64_t> first(size_t(V + 1), 0), order(size_t(T > 0 ? T : 0));
  for (int64_t t = 0; t < T; ++t) {
    const int64_t r = ids[t] - vocab_offset;
    if (r >= 0 && r < V)
      ++first[size_t(r + 1)];
  }
  for (int64_t r = 0; r < V; ++r)
    first[size_t(r + 1)] += first[size_t(r)];
  ScratchVector<int64_t> next(first.begin(), first.end() - 1);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t r = ids[t] - vocab_offset;
    if (r >= 0 && r < V)
      order[size_t(next[size_t(r)]++)] = t;
  }
  WidenedRows dys(dy, dy_dtype, H);
  ScratchVector<float> acc(static_cast<size_t>(H), 0.0f);
  char *out = static_cast<char *>(dtable);
  for (int64_t r = 0; r < V; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t j = first[size_t(r)]; j < first[size_t(r + 1)]; ++j) {
      const float *src = dys.row(order[size_t(j)]);
      for (int64_t i = 0; i < H; ++i)
        acc[size_t(i)] += src[i];
    }
    sprt_convert(acc.data(), SPRT_DTYPE_F32, out + r * H * outBytes,
                 dtable_dtype, H);
  }
}

} // extern "C"

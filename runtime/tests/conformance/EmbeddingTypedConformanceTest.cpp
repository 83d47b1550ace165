//===- EmbeddingTypedConformanceTest.cpp - the embedding as stored --------===//
//
// sprt_embedding_typed copies rows as stored; sprt_embedding_grad_typed sums
// each row's tokens in f32 in token order and rounds each sum once: the f32
// kernel between conversions, bit for bit on both backends (the CUDA one
// sorts the tokens by row, stably, instead of adding them with atomics, so
// its sums are the CPU's, in the CPU's order, run to run). The reference
// below adds in token order in f32. Cases: ids outside this rank's rows
// (vocab-parallel), a token repeated thousands of times (one long run),
// a vocabulary as wide as GPT-2's (the sort's key bits), no tokens, and
// every pair of dy and table-gradient dtypes the compiler emits.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <random>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::randomFloats;

namespace {

using EmbeddingTyped = DeviceTest;

struct Case {
  int64_t T, V, H, offset, idRange;
  double repeated; // the share of tokens that are id `offset + 1`
};

std::vector<int64_t> idsFor(const Case &c, unsigned seed) {
  std::vector<int64_t> ids(static_cast<size_t>(c.T));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (auto &id : ids)
    id = u(gen) < c.repeated
             ? c.offset + 1
             : std::uniform_int_distribution<int64_t>(0, c.idRange - 1)(gen);
  return ids;
}

const Case kCases[] = {
    {1, 1, 1, 0, 1, 0.0},         // one token, one row
    {64, 20, 33, 15, 50, 0.0},    // rows [15, 35) of 50; odd width
    {5000, 300, 64, 0, 300, 0.4}, // one row holds ~2000 tokens
    {300, 50257, 8, 0, 50257, 0.0},
    {0, 7, 16, 0, 7, 0.0}, // no tokens: a zero gradient
};

TEST_F(EmbeddingTyped, LookupCopiesRowsAsStored) {
  for (const Case &c : kCases)
    for (int32_t t : {kF32, kBf16, kF16}) {
      const std::string what = std::string("embedding ") + nameOf(t) +
                               " T=" + std::to_string(c.T) +
                               " V=" + std::to_string(c.V);
      const std::vector<int64_t> ids = idsFor(c, 31);
      const std::vector<float> table =
          asStored(randomFloats(size_t(c.V * c.H), 32, -2.0f, 2.0f), t);
      std::vector<float> want(size_t(c.T * c.H), 0.0f);
      for (int64_t tok = 0; tok < c.T; ++tok) {
        const int64_t r = ids[size_t(tok)] - c.offset;
        if (r >= 0 && r < c.V)
          for (int64_t i = 0; i < c.H; ++i)
            want[size_t(tok * c.H + i)] = table[size_t(r * c.H + i)];
      }
      DeviceBuffer<int64_t> dIds(std::max<size_t>(ids.size(), 1));
      if (!ids.empty())
        dIds.upload(ids);
      TypedBuffer dTable(table, t),
          dY(nans(std::max<size_t>(want.size(), 1)), t);
      sprt_embedding_typed(dIds, dTable.get(), dY.get(), c.T, c.V, c.H,
                           c.offset, t);
      std::vector<float> got = dY.download();
      got.resize(want.size());
      expectBitwiseEqual(what, got, want);
    }
}

TEST_F(EmbeddingTyped, GradSumsEachRowInTokenOrderRoundedOnce) {
  const int32_t pairs[][2] = {{kF32, kF32}, {kBf16, kBf16}, {kBf16, kF32},
                              {kF16, kF16}, {kF16, kF32},   {kF32, kBf16}};
  for (const Case &c : kCases)
    for (const auto &p : pairs) {
      const std::string what =
          std::string("embedding_grad ") + nameOf(p[0]) + "->" + nameOf(p[1]) +
          " T=" + std::to_string(c.T) + " V=" + std::to_string(c.V);
      const std::vector<int64_t> ids = idsFor(c, 33);
      const std::vector<float> dy =
          asStored(randomFloats(size_t(c.T * c.H), 34, -1.0f, 1.0f), p[0]);
      std::vector<float> sums(size_t(c.V * c.H), 0.0f);
      for (int64_t tok = 0; tok < c.T; ++tok) {
        const int64_t r = ids[size_t(tok)] - c.offset;
        if (r >= 0 && r < c.V)
          for (int64_t i = 0; i < c.H; ++i)
            sums[size_t(r * c.H + i)] += dy[size_t(tok * c.H + i)];
      }
      DeviceBuffer<int64_t> dIds(std::max<size_t>(ids.size(), 1));
      if (!ids.empty())
        dIds.upload(ids);
      // (No tokens: a one-element dy the kernel must not read.)
      TypedBuffer dDy(dy.empty() ? std::vector<float>(1, 0.0f) : dy, p[0]),
          dDtable(nans(sums.size()), p[1]);
      const std::vector<float> want = asStored(sums, p[1]);
      // Twice: the same bits each time (no atomics).
      for (int call = 0; call < 2; ++call) {
        sprt_embedding_grad_typed(dIds, dDy.get(), p[0], dDtable.get(), p[1],
                                  c.T, c.V, c.H, c.offset);
        expectBitwiseEqual(what + " call " + std::to_string(call),
                           dDtable.download(), want);
      }
      if (p[0] == kF32 && p[1] == kF32) {
        DeviceBuffer<float> f(nans(sums.size()));
        sprt_embedding_grad_f32(dIds, static_cast<const float *>(dDy.get()), f,
                                c.T, c.V, c.H, c.offset);
        expectBitwiseEqual(what + " (f32 kernel)", f.download(), want);
      }
    }
}

} // namespace

//===- InitConformanceTest.cpp - parameters drawn on the device -----------===//
//
// sprt_init_normal must give, bit for bit, what the runtime drew on the host
// before it: element e of a shard is scale * sprt_normal(seed, stream, global
// index of e) (a float product) rounded to the stored type, and a master
// slice holds the f32 values. The reference below is that loop, with the
// global index from the shard's coordinates written out by hand.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/init.h"

#include <algorithm>
#include <cstring>

using namespace sprt_conformance;

namespace {

using Init = DeviceTest;

/// One dimension of a test shard: `blocks` blocks of the global dimension,
/// of which this rank holds `local` elements each from `offset`.
struct Dim {
  int64_t global, blocks, local, offset;
};

sprt_shard_map mapOf(const std::vector<Dim> &dims) {
  sprt_shard_map map{};
  map.rank = int32_t(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    map.global_shape[d] = dims[d].global;
    map.global_block[d] = dims[d].global / dims[d].blocks;
    map.local_block[d] = dims[d].local;
    map.local_shape[d] = dims[d].local * dims[d].blocks;
    map.offset[d] = dims[d].offset;
  }
  return map;
}

/// The reference: the host loop, one sprt_normal per element.
std::vector<float> reference(const std::vector<Dim> &dims, uint64_t seed,
                             uint64_t stream, float scale) {
  int64_t n = 1;
  for (const Dim &d : dims)
    n *= d.local * d.blocks;
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e, global = 0, stride = 1;
    std::vector<int64_t> g(dims.size());
    for (size_t k = dims.size(); k-- > 0;) {
      const Dim &d = dims[k];
      int64_t l = rest % (d.local * d.blocks);
      rest /= d.local * d.blocks;
      g[k] = (l / d.local) * (d.global / d.blocks) + d.offset + l % d.local;
    }
    for (size_t k = dims.size(); k-- > 0;) {
      global += g[k] * stride;
      stride *= dims[k].global;
    }
    out[size_t(e)] = scale * sprt_normal(seed, stream, uint64_t(global));
  }
  return out;
}

/// Bits of `v` stored as `t` (16-bit types in the low half).
std::vector<uint32_t> storedBits(const std::vector<float> &v, int32_t t) {
  std::vector<uint32_t> bits(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == kF32)
      std::memcpy(&bits[i], &v[i], 4);
    else
      bits[i] = t == kBf16 ? sprt::dtype::f32ToBf16(v[i])
                           : sprt::dtype::f32ToF16(v[i]);
  }
  return bits;
}

std::vector<uint32_t> downloadBits(const DeviceBuffer<uint16_t> &buf, int32_t t,
                                   size_t n) {
  std::vector<uint16_t> raw = buf.download();
  std::vector<uint32_t> bits(n);
  if (t == kF32)
    std::memcpy(bits.data(), raw.data(), n * 4);
  else
    for (size_t i = 0; i < n; ++i)
      bits[i] = raw[i];
  return bits;
}

size_t countDiffering(const std::vector<uint32_t> &a,
                      const std::vector<uint32_t> &b) {
  size_t bad = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    bad += a[i] != b[i];
  return bad +
         (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

void checkShard(const std::string &what, const std::vector<Dim> &dims,
                int64_t masterBegin, int64_t masterCount) {
  const uint64_t seed = 0x5eed00000000002aull, stream = 0xfeedbeefcafe1234ull;
  const float scale = 0.02f;
  const sprt_shard_map map = mapOf(dims);
  const std::vector<float> ref = reference(dims, seed, stream, scale);
  const size_t n = ref.size();
  for (int32_t t : {kF32, kBf16, kF16}) {
    SCOPED_TRACE(what + " " + nameOf(t));
    // Room for f32; a 16-bit shard uses the first half.
    DeviceBuffer<uint16_t> out(std::vector<uint16_t>(2 * n, 0xffff));
    // The master slice with a NaN guard on both sides.
    DeviceBuffer<float> master(nans(size_t(masterCount) + 2));
    sprt_init_normal(&map, seed, stream, scale, out.get(), t,
                     masterCount ? master.get() + 1 : nullptr, masterBegin,
                     masterCount);
    EXPECT_EQ(countDiffering(downloadBits(out, t, n), storedBits(ref, t)), 0u)
        << "elements differ from scale * sprt_normal";
    std::vector<float> got = master.download();
    if (!masterCount)
      continue;
    EXPECT_TRUE(std::isnan(got.front()) && std::isnan(got.back()))
        << "the master slice's neighbours were written";
    std::vector<float> want(ref.begin() + masterBegin,
                            ref.begin() + masterBegin + masterCount);
    sprt_test::expectBitwiseEqual("master slice", got.data() + 1, want.data(),
                                  size_t(masterCount));
  }
}

TEST_F(Init, WholeVector) { checkShard("[1000]", {{1000, 1, 1000, 0}}, 0, 0); }

TEST_F(Init, RowShardWithMaster) {
  // Rows 64..127 of a [256, 40] weight; the master's slice is the second
  // quarter of the shard.
  checkShard("[256, 40] rows", {{256, 1, 64, 64}, {40, 1, 40, 0}}, 640, 640);
}

TEST_F(Init, FusedBlocksSplit) {
  // GPT-2's [h, 3h] c_attn weight at tp 2, rank 1: dimension 1 holds the
  // second half of each of the q, k and v blocks.
  checkShard("[24, 72] blocks", {{24, 1, 24, 0}, {72, 3, 12, 12}}, 288, 288);
}

TEST_F(Init, TwoSplitDims) {
  checkShard("[6, 10, 36] two splits",
             {{6, 2, 1, 2}, {10, 1, 10, 0}, {36, 2, 6, 6}}, 0, 240);
}

TEST_F(Init, ManyElementsAnyThreadCount) {
  // Enough elements for several threads (and CUDA blocks); the result does
  // not depend on how many.
  const std::vector<Dim> dims = {{3 << 20, 1, 3 << 20, 0}};
  for (int32_t threads : {1, 3})
    for (int32_t t : {kF32, kBf16}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, " + nameOf(t));
      sprt_set_host_threads(threads);
      const sprt_shard_map map = mapOf(dims);
      const std::vector<float> ref = reference(dims, 7, 11, 1.0f);
      DeviceBuffer<uint16_t> out(2 * ref.size());
      sprt_init_normal(&map, 7, 11, 1.0f, out.get(), t, nullptr, 0, 0);
      EXPECT_EQ(
          countDiffering(downloadBits(out, t, ref.size()), storedBits(ref, t)),
          0u);
    }
  sprt_set_host_threads(0);
}

TEST_F(Init, Constant) {
  for (int32_t t : {kF32, kBf16, kF16}) {
    SCOPED_TRACE(nameOf(t));
    const size_t n = 70001;
    DeviceBuffer<uint16_t> out(std::vector<uint16_t>(2 * n + 2, 0x7e00));
    DeviceBuffer<float> master(nans(12));
    sprt_init_constant(int64_t(n), 1.0f, out.get(), t, master.get(), 10);
    EXPECT_EQ(countDiffering(downloadBits(out, t, n),
                             storedBits(std::vector<float>(n, 1.0f), t)),
              0u);
    std::vector<float> m = master.download();
    EXPECT_EQ(std::count(m.begin(), m.begin() + 10, 1.0f), 10);
    EXPECT_TRUE(std::isnan(m[10]) && std::isnan(m[11]));
  }
}

} // namespace

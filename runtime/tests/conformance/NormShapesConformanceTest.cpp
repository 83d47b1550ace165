//===- NormShapesConformanceTest.cpp - norms and bias grads by shape ------===//
//
// The shapes that choose the CUDA backend's paths (runtime/cuda/NormRows.cuh,
// ColumnSum.cuh): float4 rows of one and two chunks, scalar rows, rows not
// 16-byte aligned, widths not a multiple of 4, widths below one vector,
// widths the fused kernels do not cover (the row-per-block kernels and
// column partials), many rows (many row tiles, partial sums added in a
// second stage) and one row; with and without the affine parameters and
// with only some gradients wanted. Every backend runs every case; the
// references and tolerances are LinearNormConformanceTest.cpp's (2e-6
// relative + 1e-6 absolute on outputs, 1e-5 absolute on dx, 1e-6 of the sum
// of magnitudes on the column sums).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "NormReference.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt_conformance;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using NormShapes = DeviceTest;

struct Shape {
  int64_t T, H;
  bool misaligned; // every row pointer one float past a 16-byte boundary
  const char *what;
};

const Shape kShapes[] = {
    {2048, 768, false, "float4 rows, many row tiles"},
    {257, 771, false, "scalar rows of two chunks"},
    {96, 4096, false, "float4 rows of two chunks"},
    {300, 768, true, "rows not 16-byte aligned"},
    {40, 2051, false, "too wide to fuse, one column tile"},
    {3000, 2050, false, "too wide to fuse, column partials"},
    {1, 6, false, "one row"},
    {33, 3, false, "narrower than a vector"},
};

/// A device copy of v, `misaligned` floats past the allocation's start.
class Placed {
public:
  Placed(const std::vector<float> &v, bool misaligned)
      : buf(padded(v, misaligned)), off(misaligned ? 1 : 0) {}
  float *get() const { return buf.get() + off; }
  operator float *() const { return get(); }
  std::vector<float> download() const {
    std::vector<float> all = buf.download();
    return std::vector<float>(all.begin() + off, all.end());
  }

private:
  static std::vector<float> padded(const std::vector<float> &v, bool m) {
    std::vector<float> p(v.size() + (m ? 1 : 0), 0.0f);
    std::copy(v.begin(), v.end(), p.begin() + (m ? 1 : 0));
    return p;
  }
  DeviceBuffer<float> buf;
  size_t off;
};

std::string label(const char *op, const Shape &s) {
  return std::string(op) + " T=" + std::to_string(s.T) +
         " H=" + std::to_string(s.H) + " (" + s.what + ")";
}

TEST_F(NormShapes, LayerNormEveryPath) {
  const double eps = 1e-5;
  uint32_t seed = 100;
  for (const Shape &s : kShapes) {
    const size_t n = size_t(s.T * s.H), h = size_t(s.H);
    auto x = randomFloats(n, ++seed, 2.0f, 4.0f), dy = randomFloats(n, ++seed);
    auto w = randomFloats(h, ++seed), b = randomFloats(h, ++seed);
    std::vector<float> ones(h, 1.0f), zeros(h, 0.0f);
    NormRef r = normRef(false, x, w, b, dy, s.T, s.H, eps);
    NormRef r1 = normRef(false, x, ones, zeros, dy, s.T, s.H, eps);
    const bool m = s.misaligned;
    Placed dX(x, m), dDy(dy, m), dW(w, m), dB(b, m), dY(nans(n), m),
        dDx(nans(n), m), dDw(nans(h), m), dDb(nans(h), m);

    sprt_layer_norm_f32(dX, dW, dB, dY, s.T, s.H, eps);
    expectClose(label("layer_norm", s), dY.download(), r.y, 2e-6, 1e-6);
    sprt_layer_norm_grad_f32(dDy, dX, dW, dDx, dDw, dDb, s.T, s.H, eps);
    expectClose(label("layer_norm_grad dx", s), dDx.download(), r.dx, 2e-6,
                1e-5);
    expectClose(label("layer_norm_grad dw", s), dDw.download(), r.dw, 1e-6, 0.0,
                &r.dwMag);
    expectClose(label("layer_norm_grad db", s), dDb.download(), r.db, 1e-6, 0.0,
                &r.dbMag);

    // Only the weight's gradient wanted.
    Placed dDw2(nans(h), m);
    sprt_layer_norm_grad_f32(dDy, dX, dW, dDx, dDw2, nullptr, s.T, s.H, eps);
    expectClose(label("layer_norm_grad dw only", s), dDw2.download(), r.dw,
                1e-6, 0.0, &r.dwMag);

    // No affine parameters, no column gradients.
    sprt_layer_norm_f32(dX, nullptr, nullptr, dY, s.T, s.H, eps);
    expectClose(label("layer_norm no affine", s), dY.download(), r1.y, 2e-6,
                1e-6);
    sprt_layer_norm_grad_f32(dDy, dX, nullptr, dDx, nullptr, nullptr, s.T, s.H,
                             eps);
    expectClose(label("layer_norm_grad no affine", s), dDx.download(), r1.dx,
                2e-6, 1e-5);
  }
}

TEST_F(NormShapes, RmsNormEveryPath) {
  const double eps = 1e-6;
  uint32_t seed = 200;
  for (const Shape &s : kShapes) {
    const size_t n = size_t(s.T * s.H), h = size_t(s.H);
    auto x = randomFloats(n, ++seed), dy = randomFloats(n, ++seed);
    auto w = randomFloats(h, ++seed);
    NormRef r = normRef(true, x, w, {}, dy, s.T, s.H, eps);
    const bool m = s.misaligned;
    Placed dX(x, m), dDy(dy, m), dW(w, m), dY(nans(n), m), dDx(nans(n), m),
        dDw(nans(h), m);
    sprt_rms_norm_f32(dX, dW, dY, s.T, s.H, eps);
    expectClose(label("rms_norm", s), dY.download(), r.y, 2e-6, 1e-6);
    sprt_rms_norm_grad_f32(dDy, dX, dW, dDx, dDw, s.T, s.H, eps);
    expectClose(label("rms_norm_grad dx", s), dDx.download(), r.dx, 2e-6, 1e-5);
    expectClose(label("rms_norm_grad dw", s), dDw.download(), r.dw, 1e-6, 0.0,
                &r.dwMag);
    Placed dDx2(nans(n), m);
    sprt_rms_norm_grad_f32(dDy, dX, dW, dDx2, nullptr, s.T, s.H, eps);
    expectClose(label("rms_norm_grad dx (no dw)", s), dDx2.download(), r.dx,
                2e-6, 1e-5);
  }
}

// No rows: the column gradients are zero.
TEST_F(NormShapes, NoRowsGiveZeroColumnGradients) {
  const int64_t H = 771;
  DeviceBuffer<float> dDw(nans(size_t(H))), dDb(nans(size_t(H))),
      dDr(nans(size_t(H))), dW(randomFloats(size_t(H), 5));
  sprt_layer_norm_grad_f32(nullptr, nullptr, dW, nullptr, dDw, dDb, 0, H, 1e-5);
  sprt_rms_norm_grad_f32(nullptr, nullptr, dW, nullptr, dDr, 0, H, 1e-5);
  const std::vector<double> zero(size_t(H), 0.0);
  expectClose("layer_norm_grad T=0 dw", dDw.download(), zero, 0.0, 0.0);
  expectClose("layer_norm_grad T=0 db", dDb.download(), zero, 0.0, 0.0);
  expectClose("rms_norm_grad T=0 dw", dDr.download(), zero, 0.0, 0.0);
}

TEST_F(NormShapes, BiasGradEveryShape) {
  const std::pair<int64_t, int64_t> shapes[] = {
      {8192, 768}, {5000, 771}, {37, 3072}, {1, 5}, {0, 7}, {64, 2304}};
  uint32_t seed = 300;
  for (auto [T, H] : shapes) {
    auto dy = randomFloats(size_t(T * H), ++seed);
    std::vector<double> ref(size_t(H), 0.0), mag(size_t(H), 0.0);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < H; ++i) {
        ref[i] += dy[t * H + i];
        mag[i] += std::fabs(dy[t * H + i]);
      }
    DeviceBuffer<float> dDy(dy.empty() ? std::vector<float>(1) : dy),
        dDb(nans(size_t(H)));
    sprt_bias_grad_f32(dDy, dDb, T, H);
    expectClose("bias_grad T=" + std::to_string(T) + " H=" + std::to_string(H),
                dDb.download(), ref, 1e-6, 0.0, &mag);
  }
}

} // namespace

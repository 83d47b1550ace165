//===- ElementwiseConformanceTest.cpp - maps, reshapes, embedding ---------===//
//
// Activations and their derivatives against double formulas (bound: 4e-6
// relative + 1e-6 absolute: a few float ulps of libm / CUDA math functions
// and the tanh form's polynomial exp), exact data movement (bitwise), and
// reductions over tokens or repeated heads (bound: 1e-6 of the sum of
// magnitudes; the embedding gradient's atomic adds vary the order).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using Elementwise = DeviceTest;

double geluGradRef(double x, bool tanhForm) {
  if (tanhForm) {
    const double b = 0.7978845608028654, k = 0.044715;
    const double th = std::tanh(b * (x + k * x * x * x));
    return 0.5 * (1.0 + th) +
           0.5 * x * (1.0 - th * th) * b * (1.0 + 3 * k * x * x);
  }
  return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))) +
         x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
}

// Inputs over [-6, 6] plus the edges where formulas switch branches.
std::vector<float> activationInputs() {
  auto x = randomFloats(2000, 11, -6.0f, 6.0f);
  for (float e : {0.0f, -0.0f, 1e-6f, -1e-6f, 20.0f, -20.0f, 90.0f, -90.0f})
    x.push_back(e);
  return x;
}

TEST_F(Elementwise, GeluBothFormsAndGrads) {
  auto x = activationInputs(), dy = randomFloats(x.size(), 12);
  const int64_t n = int64_t(x.size());
  DeviceBuffer<float> dX(x), dDy(dy), dOut(nans(x.size()));
  for (int tanhForm = 0; tanhForm < 2; ++tanhForm) {
    std::vector<double> ref(x.size()), refGrad(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      ref[i] = geluRef(x[i], tanhForm);
      refGrad[i] = dy[i] * geluGradRef(x[i], tanhForm);
    }
    sprt_gelu_f32(dX, dOut, n, tanhForm);
    expectClose(tanhForm ? "gelu tanh" : "gelu exact", dOut.download(), ref,
                4e-6, 1e-6);
    sprt_gelu_grad_f32(dDy, dX, dOut, n, tanhForm);
    expectClose(tanhForm ? "gelu_grad tanh" : "gelu_grad exact",
                dOut.download(), refGrad, 4e-6, 1e-6);
  }
}

TEST_F(Elementwise, SiluReluAndGrads) {
  auto x = activationInputs(), dy = randomFloats(x.size(), 13);
  const int64_t n = int64_t(x.size());
  DeviceBuffer<float> dX(x), dDy(dy), dOut(nans(x.size()));
  std::vector<double> silu(x.size()), siluG(x.size()), relu(x.size()),
      reluG(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i], s = 1.0 / (1.0 + std::exp(-v));
    silu[i] = v * s;
    siluG[i] = dy[i] * s * (1.0 + v * (1.0 - s));
    relu[i] = v < 0 ? 0.0 : v;
    reluG[i] = v <= 0 ? 0.0 : dy[i];
  }
  sprt_silu_f32(dX, dOut, n);
  expectClose("silu", dOut.download(), silu, 4e-6, 1e-6);
  sprt_silu_grad_f32(dDy, dX, dOut, n);
  expectClose("silu_grad", dOut.download(), siluG, 4e-6, 1e-6);
  sprt_relu_f32(dX, dOut, n);
  expectClose("relu", dOut.download(), relu, 0.0, 0.0);
  sprt_relu_grad_f32(dDy, dX, dOut, n);
  expectClose("relu_grad", dOut.download(), reluG, 0.0, 0.0);
  // NaN propagates through relu; relu_grad passes dy at a NaN input.
  DeviceBuffer<float> dNan(std::vector<float>{NAN}),
      dOne(std::vector<float>{2.0f}), dR(nans(1));
  sprt_relu_f32(dNan, dR, 1);
  EXPECT_TRUE(std::isnan(dR.download()[0]));
  sprt_relu_grad_f32(dOne, dNan, dR, 1);
  EXPECT_EQ(dR.download()[0], 2.0f);
}

TEST_F(Elementwise, MulAddBiasFillScale) {
  const int64_t T = 13, H = 37, n = T * H;
  auto a = randomFloats(size_t(n), 1), b = randomFloats(size_t(n), 2),
       bias = randomFloats(size_t(H), 3);
  DeviceBuffer<float> dA(a), dB(b), dBias(bias),
      dY(nans(static_cast<size_t>(n)));
  std::vector<float> mul(static_cast<size_t>(n)), add(static_cast<size_t>(n)),
      biasAdd(static_cast<size_t>(n)), fill(size_t(n), float(0.1)),
      scaled(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    mul[i] = a[i] * b[i];
    add[i] = a[i] + b[i];
    biasAdd[i] = a[i] + bias[i % H];
    scaled[i] = float(double(a[i]) * 0.3);
  }
  sprt_mul_f32(dA, dB, dY, n);
  expectBitwiseEqual("mul", dY.download(), mul);
  sprt_add_f32(dA, dB, dY, n);
  expectBitwiseEqual("add", dY.download(), add);
  sprt_bias_add_f32(dA, dBias, dY, T, H);
  expectBitwiseEqual("bias_add", dY.download(), biasAdd);
  sprt_fill_f32(dY, n, 0.1);
  expectBitwiseEqual("fill", dY.download(), fill);
  sprt_scale_f32(dA, n, 0.3);
  expectBitwiseEqual("scale", dA.download(), scaled);
}

TEST_F(Elementwise, BiasGrad) {
  const int64_t T = 300, H = 19;
  auto dy = randomFloats(size_t(T * H), 5);
  DeviceBuffer<float> dDy(dy), dDb(nans(static_cast<size_t>(H)));
  std::vector<double> ref(size_t(H), 0.0), mag(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < H; ++i) {
      ref[i] += dy[t * H + i];
      mag[i] += std::fabs(dy[t * H + i]);
    }
  sprt_bias_grad_f32(dDy, dDb, T, H);
  expectClose("bias_grad", dDb.download(), ref, 1e-6, 0.0, &mag);
}

TEST_F(Elementwise, QkvSplitAndConcatBothPackings) {
  const int64_t T = 5, heads = 6, D = 4;
  for (int64_t kv : {int64_t(6), int64_t(2)}) {
    for (int packing = 0; packing < 2; ++packing) {
      const int64_t qW = heads * D, kvW = kv * D, rowW = qW + 2 * kvW;
      auto qkv = randomFloats(size_t(T * rowW), 7);
      std::vector<float> q(size_t(T * qW)), k(size_t(T * kvW)),
          v(size_t(T * kvW));
      const int64_t factor = heads / kv;
      for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < rowW; ++c) {
          const float x = qkv[t * rowW + c];
          if (!packing) {
            if (c < qW)
              q[t * qW + c] = x;
            else if (c < qW + kvW)
              k[t * kvW + c - qW] = x;
            else
              v[t * kvW + c - qW - kvW] = x;
            continue;
          }
          // Per kv group g: [q_{g*factor} .. q_{g*factor+factor-1} k_g v_g].
          const int64_t g = c / ((factor + 2) * D), w = c % ((factor + 2) * D);
          const int64_t slot = w / D, d = w % D;
          if (slot < factor)
            q[t * qW + (g * factor + slot) * D + d] = x;
          else if (slot == factor)
            k[t * kvW + g * D + d] = x;
          else
            v[t * kvW + g * D + d] = x;
        }
      DeviceBuffer<float> dQkv(qkv), dQ(nans(q.size())), dK(nans(k.size())),
          dV(nans(v.size())), dBack(nans(qkv.size()));
      sprt_qkv_split(dQkv, dQ, dK, dV, T, heads, kv, D, packing, 4);
      const std::string what = "qkv kv=" + std::to_string(kv) +
                               " packing=" + std::to_string(packing);
      expectBitwiseEqual(what + " q", dQ.download(), q);
      expectBitwiseEqual(what + " k", dK.download(), k);
      expectBitwiseEqual(what + " v", dV.download(), v);
      sprt_qkv_concat(dQ, dK, dV, dBack, T, heads, kv, D, packing, 4);
      expectBitwiseEqual(what + " concat", dBack.download(), qkv);
    }
  }
}

TEST_F(Elementwise, RepeatHeadsAndGrad) {
  const int64_t T = 4, heads = 3, D = 5, factor = 4;
  auto x = randomFloats(size_t(T * heads * D), 8);
  auto dy = randomFloats(size_t(T * heads * factor * D), 9);
  std::vector<float> y(dy.size());
  std::vector<double> dx(x.size(), 0.0), mag(x.size(), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t r = 0; r < factor; ++r)
        for (int64_t d = 0; d < D; ++d) {
          const int64_t yi = (t * heads * factor + h * factor + r) * D + d;
          const int64_t xi = (t * heads + h) * D + d;
          y[yi] = x[xi];
          dx[xi] += dy[yi];
          mag[xi] += std::fabs(dy[yi]);
        }
  DeviceBuffer<float> dX(x), dY(nans(y.size())), dDy(dy), dDx(nans(x.size()));
  sprt_repeat_heads(dX, dY, T, heads, D, factor, 4);
  expectBitwiseEqual("repeat_heads", dY.download(), y);
  sprt_repeat_heads_grad_f32(dDy, dDx, T, heads, D, factor);
  expectClose("repeat_heads_grad", dDx.download(), dx, 2e-7, 0.0, &mag);
}

TEST_F(Elementwise, PositionIds) {
  const int64_t S = 7, B = 3;
  DeviceBuffer<int64_t> dOut(size_t(S * B));
  sprt_position_ids_i64(dOut, S, B, 40);
  auto got = dOut.download();
  for (int64_t s = 0; s < S; ++s)
    for (int64_t b = 0; b < B; ++b)
      EXPECT_EQ(got[s * B + b], 40 + s);
}

TEST_F(Elementwise, EmbeddingAndGradWithVocabOffset) {
  // This rank holds rows [offset, offset + V) of a 50-row vocabulary; ids
  // outside give zero rows and no gradient. Repeated ids accumulate, in
  // token order in f32 on every backend (bit for bit).
  const int64_t T = 64, V = 20, H = 33, offset = 15;
  std::vector<int64_t> ids(static_cast<size_t>(T));
  std::mt19937 gen(21);
  for (auto &id : ids)
    id = std::uniform_int_distribution<int64_t>(0, 49)(gen);
  auto table = randomFloats(size_t(V * H), 22);
  auto dy = randomFloats(size_t(T * H), 23);
  std::vector<float> y(size_t(T * H), 0.0f);
  std::vector<float> dtable(size_t(V * H), 0.0f);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t r = ids[t] - offset;
    if (r < 0 || r >= V)
      continue;
    for (int64_t i = 0; i < H; ++i) {
      y[t * H + i] = table[r * H + i];
      dtable[r * H + i] += dy[t * H + i];
    }
  }
  DeviceBuffer<int64_t> dIds(ids);
  DeviceBuffer<float> dTable(table), dY(nans(y.size())), dDy(dy),
      dDtable(nans(dtable.size()));
  sprt_embedding_f32(dIds, dTable, dY, T, V, H, offset);
  expectBitwiseEqual("embedding", dY.download(), y);
  sprt_embedding_grad_f32(dIds, dDy, dDtable, T, V, H, offset);
  expectBitwiseEqual("embedding_grad", dDtable.download(), dtable);
}

} // namespace

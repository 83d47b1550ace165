//===- SwigluConformanceTest.cpp - SwiGLU's product and its gradients -----===//
//
// sprt_swiglu_typed(gate, up) and sprt_swiglu_grad_typed(dy, gate, up), which
// tfm-fuse-elementwise puts in place of tfm.silu + tfm.mul and of their
// gradients, checked two ways in every element type:
// - against the calls they replace, as the unfused program makes them
//   (sprt_silu_typed, sprt_mul_typed, sprt_silu_grad_typed): bit for bit on
//   the cpu backend, which the e2e fusion test relies on; elsewhere within
//   two ulps of the type (the CUDA kernel evaluates the same formulas in one
//   kernel, where nvcc may contract differently, and a SiLU an ulp apart
//   moves the product by up to an ulp before its own rounding);
// - against double references: y = silu(g) u, dgate = dy u silu'(g),
//   dup = dy silu(g). Each result is rounded twice (the intermediate and
//   itself), so its error is at most 2 u_t of the exact value (u_t the unit
//   roundoff, exact products otherwise) plus the f32 SiLU's own error (a
//   few f32 ulps, 1e-6 relative covers it) plus, in f16, the subnormal
//   spacing 2^-24 of each rounding scaled by the factor after it (|u|,
//   |dy| <= 6, |silu'| <= 1.1): 8 x 2^-24 absolute.
// 5115 elements (two CPU blocks and an odd tail, not a multiple of four),
// operands one element off the allocation's alignment (the CUDA kernel's
// one-per-thread path), and results written over an operand.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cmath>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;

namespace {

using Swiglu = DeviceTest;

constexpr size_t kN = 5115;

/// Random values in [-6, 6) as stored in `t`; with `specials`, signed zeros,
/// infinities, a NaN and large values sprinkled in.
std::vector<float> values(uint32_t seed, int32_t t, bool specials) {
  std::vector<float> v = sprt_test::randomFloats(kN, seed, -6.0f, 6.0f);
  const float odd[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e4f, -1e4f};
  for (size_t i = 0; specials && i < sizeof(odd) / sizeof(float); ++i)
    v[i * 701] = odd[i];
  return asStored(v, t);
}

/// got equals the unfused calls' want bit for bit on the cpu backend; within
/// two ulps of `t` elsewhere (NaN where want is NaN).
void expectLikeTheOps(const std::string &what, const std::vector<float> &got,
                      const std::vector<float> &want, int32_t t) {
  if (onCpuBackend()) {
    expectBitwiseEqual(what, got, want);
    return;
  }
  const double ulp = std::ldexp(1.0, t == kF32 ? -23 : t == kBf16 ? -7 : -10);
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bool ok =
        std::isnan(want[i])
            ? std::isnan(got[i])
            : got[i] == want[i] || std::fabs(double(got[i]) - want[i]) <=
                                       2 * ulp * std::fabs(double(want[i]));
    if (!ok && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", the unfused calls give " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

/// |got - want| <= 2 u_t |scale| + 1e-6 |scale| + (f16) 8 x 2^-24, where
/// `scale` bounds the exact value's factors (see the header).
void expectNearExact(const std::string &what, const std::vector<float> &got,
                     const std::vector<double> &want,
                     const std::vector<double> &scale, int32_t t) {
  const double u = unitRoundoff(t);
  const double floor = t == kF16 ? 8 * std::ldexp(1.0, -24) : 0.0;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double tol = (2 * u + 1e-6) * scale[i] + floor;
    if (!(std::fabs(double(got[i]) - want[i]) <= tol) && bad++ == 0)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", exactly " << want[i] << " (tolerance " << tol << ")";
  }
  EXPECT_EQ(bad, 0u) << what;
}

double siluRef(double x) { return x / (1.0 + std::exp(-x)); }

double siluGradRef(double x) {
  double s = 1.0 / (1.0 + std::exp(-x));
  return s * (1.0 + x * (1.0 - s));
}

/// `b`'s element 1 onwards: kN elements one off the allocation's alignment.
void *offByOne(const TypedBuffer &b, int32_t t) {
  return static_cast<char *>(b.get()) + (t == kF32 ? 4 : 2);
}

std::vector<float> dropFirst(std::vector<float> v) {
  v.erase(v.begin());
  return v;
}

TEST_F(Swiglu, IsSiluThenMul) {
  for (bool specials : {true, false})
    for (int32_t t : {kBf16, kF16, kF32}) {
      const std::string what = std::string("swiglu ") + nameOf(t) +
                               (specials ? " with specials" : "");
      std::vector<float> g = values(31, t, specials),
                         u = values(32, t, specials);
      TypedBuffer sg(g, t), su(u, t), s(nans(kN), t), want(nans(kN), t);
      sprt_silu_typed(sg.get(), s.get(), int64_t(kN), t);
      sprt_mul_typed(s.get(), su.get(), want.get(), int64_t(kN), t);
      std::vector<float> expected = want.download();
      TypedBuffer got(nans(kN), t);
      sprt_swiglu_typed(sg.get(), su.get(), got.get(), int64_t(kN), t);
      std::vector<float> y = got.download();
      expectLikeTheOps(what, y, expected, t);
      if (!specials) {
        std::vector<double> exact(kN), scale(kN);
        for (size_t i = 0; i < kN; ++i) {
          exact[i] = siluRef(g[i]) * u[i];
          scale[i] = std::fabs(exact[i]);
        }
        expectNearExact(what + " vs double", y, exact, scale, t);
      }
      // Unaligned operands, and the result over gate.
      std::vector<float> g1 = g, u1 = u;
      g1.insert(g1.begin(), 0.0f);
      u1.insert(u1.begin(), 0.0f);
      TypedBuffer ug(g1, t), uu(u1, t), uy(nans(kN + 1), t);
      sprt_swiglu_typed(offByOne(ug, t), offByOne(uu, t), offByOne(uy, t),
                        int64_t(kN), t);
      expectLikeTheOps(what + " unaligned", dropFirst(uy.download()), expected,
                       t);
      sprt_swiglu_typed(sg.get(), su.get(), sg.get(), int64_t(kN), t);
      expectLikeTheOps(what + " over gate", sg.download(), expected, t);
    }
}

TEST_F(Swiglu, GradIsTheProductsAndSiluGrad) {
  for (bool specials : {true, false})
    for (int32_t t : {kBf16, kF16, kF32}) {
      const std::string what = std::string("swiglu_grad ") + nameOf(t) +
                               (specials ? " with specials" : "");
      std::vector<float> d = values(41, t, specials),
                         g = values(42, t, specials),
                         u = values(43, t, specials);
      // The unfused backward: silu_grad(dy * up, gate), dy * silu(gate).
      TypedBuffer sd(d, t), sg(g, t), su(u, t), m(nans(kN), t), s(nans(kN), t),
          wantDg(nans(kN), t), wantDu(nans(kN), t);
      sprt_mul_typed(sd.get(), su.get(), m.get(), int64_t(kN), t);
      sprt_silu_grad_typed(m.get(), sg.get(), wantDg.get(), int64_t(kN), t);
      sprt_silu_typed(sg.get(), s.get(), int64_t(kN), t);
      sprt_mul_typed(sd.get(), s.get(), wantDu.get(), int64_t(kN), t);
      std::vector<float> expDg = wantDg.download(), expDu = wantDu.download();
      TypedBuffer dg(nans(kN), t), du(nans(kN), t);
      sprt_swiglu_grad_typed(sd.get(), sg.get(), su.get(), dg.get(), du.get(),
                             int64_t(kN), t);
      std::vector<float> gotDg = dg.download(), gotDu = du.download();
      expectLikeTheOps(what + " dgate", gotDg, expDg, t);
      expectLikeTheOps(what + " dup", gotDu, expDu, t);
      if (!specials) {
        std::vector<double> eg(kN), sgScale(kN), eu(kN), suScale(kN);
        for (size_t i = 0; i < kN; ++i) {
          eg[i] = double(d[i]) * u[i] * siluGradRef(g[i]);
          sgScale[i] = std::fabs(double(d[i]) * u[i]) * 1.1;
          eu[i] = double(d[i]) * siluRef(g[i]);
          suScale[i] = std::fabs(eu[i]);
        }
        expectNearExact(what + " dgate vs double", gotDg, eg, sgScale, t);
        expectNearExact(what + " dup vs double", gotDu, eu, suScale, t);
      }
      // Unaligned operands; then the results over dy and up.
      auto shifted = [&](std::vector<float> v) {
        v.insert(v.begin(), 0.0f);
        return v;
      };
      TypedBuffer ud(shifted(d), t), ug(shifted(g), t), uu(shifted(u), t),
          udg(nans(kN + 1), t), udu(nans(kN + 1), t);
      sprt_swiglu_grad_typed(offByOne(ud, t), offByOne(ug, t), offByOne(uu, t),
                             offByOne(udg, t), offByOne(udu, t), int64_t(kN),
                             t);
      expectLikeTheOps(what + " dgate unaligned", dropFirst(udg.download()),
                       expDg, t);
      expectLikeTheOps(what + " dup unaligned", dropFirst(udu.download()),
                       expDu, t);
      sprt_swiglu_grad_typed(sd.get(), sg.get(), su.get(), sd.get(), su.get(),
                             int64_t(kN), t);
      expectLikeTheOps(what + " dgate over dy", sd.download(), expDg, t);
      expectLikeTheOps(what + " dup over up", su.download(), expDu, t);
    }
}

TEST_F(Swiglu, EmptyTensorsWriteNothing) {
  for (int32_t t : {kBf16, kF16, kF32}) {
    std::vector<float> ones(4, 1.0f);
    TypedBuffer a(ones, t), y(nans(4), t), z(nans(4), t);
    sprt_swiglu_typed(a.get(), a.get(), y.get(), 0, t);
    sprt_swiglu_grad_typed(a.get(), a.get(), a.get(), y.get(), z.get(), 0, t);
    for (float v : y.download())
      EXPECT_TRUE(std::isnan(v)) << nameOf(t);
    for (float v : z.download())
      EXPECT_TRUE(std::isnan(v)) << nameOf(t);
  }
}

} // namespace

//===- FiniteDifferences.h - gradients by finite differences ----*- C++ -*-===//
//
// The reference of the backward kernels' tests (GradKernelsTest.cpp,
// CrossEntropyGradTest.cpp): the gradient of a double-precision forward by
// the fourth-order central difference (see GradKernelsTest.cpp for the
// error analysis).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_TESTS_FINITEDIFFERENCES_H
#define SPRT_TESTS_FINITEDIFFERENCES_H

#include <functional>
#include <vector>

namespace sprt_test {

using Vec = std::vector<double>;
using Forward = std::function<Vec(const Vec &)>;

inline Vec toDouble(const std::vector<float> &x) {
  return Vec(x.begin(), x.end());
}

// Fourth-order central difference of <dy, f(x)> with respect to every
// coordinate of x, the step of coordinate e being h[e].
inline Vec fdGradient(const Forward &f, const Vec &x, const Vec &dy,
                      const Vec &h) {
  Vec g(x.size());
  Vec xp = x;
  auto at = [&](size_t e, double s) {
    xp[e] = x[e] + s;
    Vec y = f(xp);
    xp[e] = x[e];
    return y;
  };
  for (size_t e = 0; e < x.size(); ++e) {
    Vec p1 = at(e, h[e]), m1 = at(e, -h[e]), p2 = at(e, 2 * h[e]),
        m2 = at(e, -2 * h[e]);
    double acc = 0.0;
    for (size_t i = 0; i < dy.size(); ++i)
      acc += dy[i] * (8.0 * (p1[i] - m1[i]) - (p2[i] - m2[i]));
    g[e] = acc / (12.0 * h[e]);
  }
  return g;
}

inline Vec fdGradient(const Forward &f, const Vec &x, const Vec &dy, double h) {
  return fdGradient(f, x, dy, Vec(x.size(), h));
}

// The same for a scalar function applied elementwise: dx_i = dy_i f'(x_i).
inline Vec fdElementwise(double (*f)(double), const std::vector<float> &x,
                         const std::vector<float> &dy, double h) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double d = (8.0 * (f(v + h) - f(v - h)) - (f(v + 2 * h) - f(v - 2 * h))) /
               (12.0 * h);
    g[i] = double(dy[i]) * d;
  }
  return g;
}

} // namespace sprt_test

#endif // SPRT_TESTS_FINITEDIFFERENCES_H

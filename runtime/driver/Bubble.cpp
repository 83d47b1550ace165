//===- Bubble.cpp - the pipeline bubble, measured -------------------------===//

#include "Bubble.h"

#include "Comm.h"

#include <algorithm>
#include <cstdio>

using namespace sprt;

double sprt::theoreticalBubble(int64_t stages, int64_t microBatches) {
  if (stages < 2)
    return 0.0;
  return double(stages - 1) / double(microBatches + stages - 1);
}

std::string sprt::bubbleLine(const std::vector<double> &byRank, int64_t stages,
                             int64_t microBatches, int64_t first,
                             int64_t last) {
  double sum = 0.0, lo = 0.0, hi = 0.0;
  for (size_t r = 0; r < byRank.size(); ++r) {
    sum += byRank[r];
    lo = r ? std::min(lo, byRank[r]) : byRank[r];
    hi = r ? std::max(hi, byRank[r]) : byRank[r];
  }
  double mean = byRank.empty() ? 0.0 : sum / double(byRank.size());
  double theory = theoreticalBubble(stages, microBatches);
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "pipeline bubble: measured %.3f (mean of %zu ranks; min %.3f, "
                "max %.3f; steps %lld..%lld), theory (P-1)/(M+P-1) = %.3f "
                "(P %lld, M %lld), measured / theory %.2f\n",
                mean, byRank.size(), lo, hi, (long long)first, (long long)last,
                theory, (long long)stages, (long long)microBatches,
                theory > 0.0 ? mean / theory : 0.0);
  return buf;
}

std::string sprt::gatherBubble(const BubbleMeter &meter, int64_t stages,
                               int64_t microBatches, int64_t first,
                               int64_t last) {
  std::vector<float> byRank(size_t(World::size()), 0.0f);
  byRank[size_t(World::rank())] = float(meter.fraction());
  World::reduceSumToRoot(byRank.data(), int64_t(byRank.size()));
  if (World::rank() != 0)
    return "";
  return bubbleLine(std::vector<double>(byRank.begin(), byRank.end()), stages,
                    microBatches, first, last);
}

//===- SeqSplit.cpp - where a rank's sequence rows sit globally -----------===//

#include "SeqSplit.h"

#include "sprt/runtime.h"

#include <algorithm>
#include <stdexcept>
#include <string>

using namespace sprt;

SeqPieces sprt::seqPieces(int64_t localRows, int64_t zigzagSize,
                          int64_t zigzagCoord, int64_t innerSize,
                          int64_t innerCoord) {
  if (localRows < 0 || zigzagSize < 1 || innerSize < 1 || zigzagCoord < 0 ||
      zigzagCoord >= zigzagSize || innerCoord < 0 || innerCoord >= innerSize)
    throw std::invalid_argument("sprt: sequence split: bad sizes or "
                                "coordinates");
  const int64_t cpRows = localRows * innerSize; // 2c rows of the cp rank
  SeqPieces out;
  out.globalRows = cpRows * zigzagSize;
  if (zigzagSize > 1 && cpRows % 2 != 0)
    throw std::invalid_argument(
        "sprt: zigzag split of " + std::to_string(cpRows) +
        " cp-local rows over " + std::to_string(zigzagSize) +
        " ranks: the rows must be even (two chunks per rank)");
  const int64_t first = innerCoord * localRows, last = first + localRows;
  if (zigzagSize == 1) { // a contiguous split (or none)
    if (localRows > 0)
      out.piece[0] = SeqPiece{0, first, localRows}, out.count = 1;
    return out;
  }
  // The cp rank's two chunks: cp-local rows [0, c) and [c, 2c).
  const int64_t c = cpRows / 2, r = zigzagCoord;
  const int64_t chunkStart[2] = {r * c, (2 * zigzagSize - 1 - r) * c};
  for (int h = 0; h < 2; ++h) {
    int64_t lo = std::max(first, h * c), hi = std::min(last, (h + 1) * c);
    if (hi <= lo)
      continue;
    SeqPiece p{lo - first, chunkStart[h] + (lo - h * c), hi - lo};
    if (out.count > 0) {
      SeqPiece &prev = out.piece[size_t(out.count - 1)];
      if (prev.globalStart + prev.rows == p.globalStart) {
        prev.rows += p.rows;
        continue;
      }
    }
    out.piece[size_t(out.count++)] = p;
  }
  return out;
}

SeqPieces sprt::seqPieces(int64_t localRows, int32_t zigzagAxis,
                          int32_t innerAxis) {
  return seqPieces(localRows, sprt_axis_size(zigzagAxis),
                   sprt_axis_coord(zigzagAxis), sprt_axis_size(innerAxis),
                   sprt_axis_coord(innerAxis));
}

//===- SeqSplitTest.cpp - seqPieces against a brute-force owner map -------===//
//
// For every global row of a sequence split in zigzag over n ranks and then
// contiguously over `inner` ranks, the reference computes its owner and
// local index directly from the definition (chunk g / c of 2n, owned by
// rank chunk or 2n - 1 - chunk); seqPieces' runs must list exactly each
// rank's local rows, in local order, with their global rows.
//
//===----------------------------------------------------------------------===//

#include "../core/SeqSplit.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace sprt;

namespace {

/// The global row of each local row of rank (r, t), by brute force.
std::vector<int64_t> referenceRows(int64_t L, int64_t n, int64_t r,
                                   int64_t inner, int64_t t) {
  const int64_t c = L / (2 * n), local = L / (n * inner);
  std::vector<int64_t> rows(size_t(local), -1);
  for (int64_t g = 0; g < L; ++g) {
    int64_t chunk = g / c;
    int64_t owner = chunk < n ? chunk : 2 * n - 1 - chunk;
    int64_t cpIndex = (chunk < n ? 0 : c) + g % c; // in the cp rank's rows
    if (owner == r && cpIndex / local == t)
      rows[size_t(cpIndex % local)] = g;
  }
  return rows;
}

TEST(SeqSplit, PiecesMatchBruteForce) {
  for (int64_t n : {1, 2, 4})
    for (int64_t inner : {1, 2})
      for (int64_t L : {int64_t(8) * n * inner, int64_t(4) * n * inner}) {
        for (int64_t r = 0; r < n; ++r)
          for (int64_t t = 0; t < inner; ++t) {
            const int64_t local = L / (n * inner);
            SeqPieces pieces = seqPieces(local, n, r, inner, t);
            EXPECT_EQ(pieces.globalRows, L);
            ASSERT_GE(pieces.count, 1);
            ASSERT_LE(pieces.count, 2);
            std::vector<int64_t> got(size_t(local), -1);
            int64_t next = 0;
            for (const SeqPiece &p : pieces) {
              EXPECT_EQ(p.localStart, next) << "runs in local order";
              EXPECT_GT(p.rows, 0);
              for (int64_t i = 0; i < p.rows; ++i)
                got[size_t(p.localStart + i)] = p.globalStart + i;
              next = p.localStart + p.rows;
            }
            EXPECT_EQ(next, local);
            EXPECT_EQ(got, referenceRows(L, n, r, inner, t))
                << "L " << L << " n " << n << " r " << r << " inner " << inner
                << " t " << t;
            // Two runs only when they are not adjacent globally.
            if (pieces.count == 2) {
              EXPECT_NE(pieces.piece[0].globalStart + pieces.piece[0].rows,
                        pieces.piece[1].globalStart);
            }
          }
      }
}

TEST(SeqSplit, ExamplesAndErrors) {
  // n = 2, L = 8: rank 0 holds chunks 0 and 3, rank 1 chunks 1 and 2.
  SeqPieces r0 = seqPieces(4, 2, 0, 1, 0);
  ASSERT_EQ(r0.count, 2);
  EXPECT_EQ(r0.piece[0].globalStart, 0);
  EXPECT_EQ(r0.piece[1].globalStart, 6);
  EXPECT_EQ(r0.piece[1].localStart, 2);
  SeqPieces r1 = seqPieces(4, 2, 1, 1, 0);
  ASSERT_EQ(r1.count, 1); // chunks 1 and 2 are adjacent
  EXPECT_EQ(r1.piece[0].globalStart, 2);
  EXPECT_EQ(r1.piece[0].rows, 4);
  // Not split: one run from innerCoord * rows, as a contiguous split.
  SeqPieces plain = seqPieces(3, 1, 0, 4, 2);
  ASSERT_EQ(plain.count, 1);
  EXPECT_EQ(plain.piece[0].globalStart, 6);
  EXPECT_EQ(plain.globalRows, 12);
  // An odd number of cp-local rows cannot be cut into two chunks.
  EXPECT_THROW(seqPieces(3, 2, 0, 1, 0), std::invalid_argument);
  EXPECT_THROW(seqPieces(4, 2, 2, 1, 0), std::invalid_argument);
}

} // namespace

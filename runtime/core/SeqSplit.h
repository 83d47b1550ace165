//===- SeqSplit.h - where a rank's sequence rows sit globally ---*- C++ -*-===//
//
// Context parallelism splits a sequence dimension of global length L over a
// mesh axis of size n in ZIGZAG order: L is cut into 2n chunks of
// c = L / (2n) rows and the rank with coordinate r holds chunk r followed by
// chunk 2n - 1 - r (every rank then does the same causal-attention work).
// The cp-local 2c rows may in turn be split contiguously over an inner plain
// axis (sequence parallelism inside a cp rank). A rank's local rows then map
// to at most two contiguous runs of global rows; this header computes them.
// Backend-neutral host code.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CORE_SEQSPLIT_H
#define SPRT_CORE_SEQSPLIT_H

#include <array>
#include <cstdint>

namespace sprt {

/// Local rows [localStart, localStart + rows) are global rows
/// [globalStart, globalStart + rows).
struct SeqPiece {
  int64_t localStart = 0, globalStart = 0, rows = 0;
};

/// The runs of a rank's local rows, in local order (adjacent runs that are
/// also adjacent globally are merged), and the global length.
struct SeqPieces {
  std::array<SeqPiece, 2> piece;
  int count = 0;
  int64_t globalRows = 0;

  const SeqPiece *begin() const { return piece.data(); }
  const SeqPiece *end() const { return piece.data() + count; }
};

/// The runs of `localRows` rows of the rank at coordinate zigzagCoord of a
/// zigzag split of size zigzagSize, and coordinate innerCoord of a
/// contiguous split of size innerSize inside it (sizes 1: not split).
/// Throws std::invalid_argument when the cp-local rows (localRows *
/// innerSize) are odd under a zigzag split of size > 1, or a coordinate is
/// out of range.
SeqPieces seqPieces(int64_t localRows, int64_t zigzagSize, int64_t zigzagCoord,
                    int64_t innerSize, int64_t innerCoord);

/// The same for this rank, from mesh axes (-1: not split).
SeqPieces seqPieces(int64_t localRows, int32_t zigzagAxis, int32_t innerAxis);

/// The document mask (1 or 0, as the kernels take it) of an attention whose
/// sprt_attention_args.document_causal is `code` (SPRT_DOCUMENTS_*): the
/// step's position ids are the rows' own indices, which leave the causal
/// mask alone, unless they are the data's packed documents (`packed`; by
/// default whether sprt_set_position_ids gave them).
int32_t documentMask(int32_t code, bool packed);
int32_t documentMask(int32_t code);

} // namespace sprt

#endif // SPRT_CORE_SEQSPLIT_H

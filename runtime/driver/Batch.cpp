//===- Batch.cpp - token batches for each step ----------------------------===//

#include "Batch.h"
#include "FileIO.h"
#include "SeqSplit.h"
#include "TokenData.h"

#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace sprt;

/// Whether line [begin, end) holds only white space.
static bool blankLine(const std::vector<unsigned char> &t, size_t begin,
                      size_t end) {
  for (size_t i = begin; i < end; ++i)
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r' && t[i] != '\n')
      return false;
  return true;
}

/// The documents of `text` end to end (blank lines dropped) and the flags of
/// their last tokens.
static void cutDocuments(std::vector<unsigned char> &text,
                         std::vector<bool> &documentEnd) {
  std::vector<unsigned char> kept;
  documentEnd.clear();
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = begin;
    while (end < text.size() && text[end] != '\n')
      ++end;
    end = std::min(end + 1, text.size()); // the newline belongs to the line
    if (blankLine(text, begin, end)) {
      if (!documentEnd.empty())
        documentEnd.back() = true;
    } else {
      kept.insert(kept.end(), text.begin() + long(begin),
                  text.begin() + long(end));
      documentEnd.resize(kept.size(), false);
    }
    begin = end;
  }
  if (!documentEnd.empty())
    documentEnd.back() = true;
  text.swap(kept);
}

bool Batcher::loadText(const std::string &path, bool packDocuments,
                       std::string &error) {
  if (model.vocab < 256) {
    error = "--data gives byte tokens 0..255 but the model's vocabulary has "
            "only " +
            std::to_string(model.vocab) + " entries";
    return false;
  }
  // A FIFO or a device would block or never end: regular files only.
  std::string why = notRegularFile(path);
  if (!why.empty()) {
    error = "cannot read the data file '" + path + "': " + why;
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read the data file '" + path + "'";
    return false;
  }
  text.assign(std::istreambuf_iterator<char>(in),
              std::istreambuf_iterator<char>());
  if (packDocuments)
    cutDocuments(text, documentEnd);
  packed = packDocuments;
  if (int64_t(text.size()) < model.seq + 2) {
    error = "the data file '" + path + "' has " + std::to_string(text.size()) +
            " bytes; a sequence needs " + std::to_string(model.seq + 2);
    return false;
  }
  return true;
}

bool Batcher::loadTokens(const std::string &path, bool packDocuments,
                         std::string &error) {
  if (!tokens.open(path, model.vocab, error))
    return false;
  packed = packDocuments;
  if (tokens.size() < model.seq + 2) {
    error = "the data file '" + path + "' has " +
            std::to_string(tokens.size()) + " tokens; a sequence needs " +
            std::to_string(model.seq + 2);
    tokens.close();
    return false;
  }
  return true;
}

void Batcher::setDataSeed(uint64_t s) {
  dataSeedValue = s;
  if (shuffled())
    order.reset(order.samples(), s);
}

bool Batcher::load(const std::string &path, bool packDocuments, bool shuffle,
                   std::string &error) {
  bool ok = hasTokenSidecar(path) ? loadTokens(path, packDocuments, error)
                                  : loadText(path, packDocuments, error);
  if (!ok)
    return false;
  this->path = path;
  // Windows of S + 1 tokens, one after another (the last token of one is
  // the first of the next): packed data is read in order.
  if (!packed && (tokenized() || shuffle))
    order.reset((dataTokens() - 1) / model.seq, dataSeedValue);
  return true;
}

Batcher::Position Batcher::position(int64_t step) const {
  Position p;
  const int64_t first = firstSequence(step);
  p.sequences = first;
  if (packed) {
    const int64_t n = dataTokens(), at = first * model.seq;
    p.epoch = at / n;
    p.sample = at % n;
    p.samplesPerEpoch = n;
  } else if (shuffled()) {
    p.epoch = order.epochOf(first);
    p.sample = first % order.samples();
    p.samplesPerEpoch = order.samples();
  }
  return p;
}

int64_t Batcher::labelledTokens() const {
  return int64_t(std::count_if(labels.begin(), labels.end(),
                               [](int64_t l) { return l != kIgnoreIndex; }));
}

std::string Batcher::unlabelled(int64_t step, const std::string &what) const {
  if (labelledTokens() > 0)
    return "";
  const int64_t first = firstSequence(step);
  return what + " " + std::to_string(step) + ": its sequences " +
         std::to_string(first) + ".." +
         std::to_string(first + stepBatch() - 1) + " of " +
         (path.empty() ? "the data" : "'" + path + "'") +
         " hold no labelled token (every label is ignored: documents of one "
         "token, every token an EOS), so the loss is undefined";
}

int64_t Batcher::stepsForEpochs(int64_t epochs) const {
  const int64_t perEpoch = position(1).samplesPerEpoch;
  if (!perEpoch)
    return 0;
  // Packed data counts tokens, the rest windows.
  const int64_t unit = packing() ? model.seq : 1;
  const int64_t left = epochs * perEpoch - originSequences * unit;
  const int64_t perStep = stepBatch() * unit;
  return originStep + std::max<int64_t>(0, (left + perStep - 1) / perStep);
}

/// Packed documents: sequence k of the step holds tokens [k S, k S + S) of
/// the documents end to end (cycling); `token(i)` is token i and `ends(i)`
/// whether it is the last of its document.
template <typename Token, typename Ends>
void Batcher::buildPacked(int64_t step, Token token, Ends ends) {
  const int64_t S = model.seq, B = stepBatch(), n = dataTokens();
  for (int64_t b = 0; b < B; ++b) {
    const int64_t sequence = firstSequence(step) + b;
    for (int64_t s = 0; s < S; ++s) {
      const int64_t i = (sequence * S + s) % n, at = b * S + s;
      const bool starts = s == 0 || ends((i + n - 1) % n);
      ids[size_t(at)] = token(i);
      labels[size_t(at)] = ends(i) ? kIgnoreIndex : token((i + 1) % n);
      positions[size_t(at)] = starts ? 0 : positions[size_t(at - 1)] + 1;
    }
  }
}

void Batcher::build(int64_t step) {
  // Every micro-batch's sequences, one after another.
  int64_t S = model.seq, B = stepBatch();
  ids.assign(size_t(B * S), 0);
  labels.assign(size_t(B * S), 0);
  positions.assign(size_t(B * S), 0);
  if (packing() && tokenized())
    buildPacked(
        step, [&](int64_t i) { return tokens[i]; },
        [&](int64_t i) { return tokens[i] == tokens.eos(); });
  else if (packing())
    buildPacked(
        step, [&](int64_t i) { return int64_t(text[size_t(i)]); },
        [&](int64_t i) { return bool(documentEnd[size_t(i)]); });
  for (int64_t b = 0; b < B && !packing() && shuffled(); ++b) {
    // Sample j of the shuffled order: tokens [j S, j S + S].
    const int64_t j = order.sampleAt(firstSequence(step) + b);
    for (int64_t s = 0; s <= S; ++s) {
      const int64_t i = j * S + s;
      const int64_t token = tokenized() ? tokens[i] : int64_t(text[size_t(i)]);
      if (s < S) {
        ids[size_t(b * S + s)] = token;
        positions[size_t(b * S + s)] = s;
      }
      if (s > 0)
        labels[size_t(b * S + s - 1)] = token;
    }
  }
  uint64_t tokenStream = sprt_hash_name("seqpar.tokens");
  uint64_t windowStream = sprt_hash_name("seqpar.windows");
  for (int64_t b = 0; b < B && !packing() && !shuffled(); ++b) {
    for (int64_t s = 0; s < S; ++s)
      positions[size_t(b * S + s)] = s;
    // Sequence b of step `step` (1-based): S + 1 consecutive bytes of the
    // text from a random position, or S + 1 random tokens.
    int64_t sequence = firstSequence(step) + b;
    for (int64_t s = 0; s <= S; ++s) {
      int64_t token;
      if (!text.empty()) {
        // A window of the text at a position drawn from the seed.
        int64_t windows = int64_t(text.size()) - S;
        int64_t start =
            int64_t(sprt_uniform(seed, windowStream, uint64_t(sequence)) *
                    float(windows)) %
            windows;
        token = text[size_t(start + s)];
      } else {
        uint64_t index = uint64_t(sequence * (S + 1) + s);
        token = int64_t(sprt_uniform(seed, tokenStream, index) *
                        float(model.vocab)) %
                model.vocab;
      }
      if (s < S)
        ids[size_t(b * S + s)] = token;
      if (s > 0)
        labels[size_t(b * S + s - 1)] = token;
    }
  }
  // For each micro-batch, this rank's batch rows and sequence rows (its
  // zigzag part), sequence first.
  const int64_t micro = model.batch,
                localB = micro / sprt_axis_size(int32_t(model.batchAxis));
  const int64_t localS = S / sprt_axis_size(int32_t(model.seqAxis));
  localIdsBuf.assign(size_t(model.microBatches * localS * localB), 0);
  localLabelsBuf.assign(localIdsBuf.size(), 0);
  const SeqPieces pieces = seqPieces(localS, int32_t(model.seqAxis), -1);
  for (int64_t m = 0; m < model.microBatches; ++m) {
    const int64_t b0 =
        m * micro + sprt_axis_coord(int32_t(model.batchAxis)) * localB;
    const size_t base = size_t(m * localS * localB);
    for (const SeqPiece &p : pieces)
      for (int64_t i = 0; i < p.rows; ++i) {
        int64_t s = p.globalStart + i, at = p.localStart + i;
        for (int64_t j = 0; j < localB; ++j) {
          localIdsBuf[base + size_t(at * localB + j)] =
              ids[size_t((b0 + j) * S + s)];
          localLabelsBuf[base + size_t(at * localB + j)] =
              labels[size_t((b0 + j) * S + s)];
        }
      }
  }
}

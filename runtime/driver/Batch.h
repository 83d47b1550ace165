//===- Batch.h - token batches for each step --------------------*- C++ -*-===//

#ifndef SPRT_DRIVER_BATCH_H
#define SPRT_DRIVER_BATCH_H

#include "Model.h"
#include "SampleOrder.h"
#include "TokenData.h"

#include "sprt/runtime.h"

#include <string>
#include <vector>

namespace sprt {

/// Builds the global batch of a step, [batch x M, seq] token ids and the
/// labels (the next token of each), the same on every rank (M the model's
/// micro-batches; micro-batch i is global rows [i batch, (i + 1) batch)),
/// and this rank's part of it in the layout the program takes
/// ([M, seq / cp, batch / dp], sequence first: for each micro-batch its
/// batch rows over the batch axis, its zigzag rows of the sequence over the
/// sequence axis, SeqSplit.h). The global ids and labels stay in natural
/// order.
class Batcher {
public:
  Batcher(const Model &model, uint64_t seed)
      : model(model), seed(seed), dataSeedValue(seed) {}
  /// The data file read ("" for the built-in random tokens).
  const std::string &source() const { return path; }

  void setSeed(uint64_t s) { seed = s; }
  /// The seed of the shuffled sample order (SampleOrder.h).
  void setDataSeed(uint64_t s);
  uint64_t dataSeed() const { return dataSeedValue; }
  /// --data FILE: a tokenized dataset when FILE has a sidecar (TokenData.h),
  /// else raw text (loadText). Tokenized data is read in shuffled epochs
  /// unless packed; raw text only with `shuffle`.
  bool load(const std::string &path, bool packDocuments, bool shuffle,
            std::string &error);
  /// A tokenized dataset (TokenData.h): with `packDocuments` the documents
  /// are those the EOS id ends.
  bool loadTokens(const std::string &path, bool packDocuments,
                  std::string &error);
  /// Byte-level tokens of a text file. False with `error` set. With
  /// `packDocuments`, the text is cut into documents (paragraphs: maximal
  /// runs of non-blank lines, newlines included; blank lines separate them)
  /// and build() packs them (see there).
  bool loadText(const std::string &path, bool packDocuments,
                std::string &error);
  /// Where the data stands before step `step` + 1: `sequences` sequences
  /// were read by steps 1..`step` (a checkpoint's `sequences_consumed`).
  /// Later steps read on from there whatever their own sequences per step
  /// (micro-batches, batch), so a resumed run neither skips nor repeats a
  /// sequence. The default origin is (0, 0).
  void setOrigin(int64_t step, int64_t sequences) {
    originStep = step;
    originSequences = sequences;
  }
  /// --epochs E: the step at which E epochs of the data have been read,
  /// counting from the origin (the last step may run into the next epoch);
  /// 0 when the data has no epochs (raw text at random positions).
  int64_t stepsForEpochs(int64_t epochs) const;
  /// The global index of the first sequence step `step` reads: the
  /// sequences of every earlier step.
  int64_t firstSequence(int64_t step) const {
    return originSequences + (step - 1 - originStep) * stepBatch();
  }
  /// The batch of step `step` (1-based). Packed documents: sequence k
  /// (= firstSequence(step) + b) holds tokens [k S, k S + S) of the
  /// documents laid end to end (cycling), a document cut by a sequence's end
  /// continuing in the next; position ids count from 0 at each document's
  /// start and at each sequence's start, and the label of a document's
  /// last token is -100. Otherwise windows of the text (or random tokens)
  /// and positions 0..S-1.
  void build(int64_t step);

  /// The label the loss ignores (tfm.cross_entropy's ignore_index): a
  /// document's last token when packed.
  static constexpr int64_t kIgnoreIndex = -100;
  /// The labels of the built batch the loss counts (not kIgnoreIndex).
  int64_t labelledTokens() const;
  /// "" when the built batch (of step `step`) has a labelled token, else
  /// why its loss is undefined, naming the step, its sequences and the data.
  std::string unlabelled(int64_t step, const std::string &what) const;

  bool packing() const { return packed; }
  bool tokenized() const { return tokens.size() > 0; }
  bool shuffled() const { return order.samples() > 0; }
  /// Where the first sequence of step `step` stands in the data: its epoch
  /// (0-based), its sample index in the epoch, and the samples of an epoch
  /// (shuffled data); packed data counts epochs in passes over its tokens
  /// (the index is the token offset). All zero for unshuffled raw text.
  struct Position {
    int64_t epoch = 0, sample = 0, samplesPerEpoch = 0;
    /// Sequences read before the step (firstSequence).
    int64_t sequences = 0;
  };
  Position position(int64_t step) const;
  const int64_t *globalIds() const { return ids.data(); }
  const int64_t *globalLabels() const { return labels.data(); }
  /// Position ids [stepBatch(), seq] in natural order.
  const int64_t *globalPositions() const { return positions.data(); }
  const int64_t *localIds() const { return localIdsBuf.data(); }
  /// The sequences of a step: every micro-batch's global batch.
  int64_t stepBatch() const { return model.batch * model.microBatches; }
  /// Tokens of this rank's part of a step's batch (micro-batches x local
  /// sequence x local batch).
  int64_t localTokens() const {
    return model.microBatches * model.seq * model.batch /
           sprt_axis_size(int32_t(model.batchAxis)) /
           sprt_axis_size(int32_t(model.seqAxis));
  }
  const int64_t *localLabels() const { return localLabelsBuf.data(); }

private:
  const Model &model;
  uint64_t seed;
  uint64_t dataSeedValue = 0;
  int64_t originStep = 0, originSequences = 0;
  std::string path;
  std::vector<unsigned char> text;
  TokenFile tokens;
  SampleOrder order;
  bool packed = false;
  /// The number of tokens of the data (text or tokens).
  int64_t dataTokens() const {
    return tokenized() ? tokens.size() : int64_t(text.size());
  }
  template <typename Token, typename Ends>
  void buildPacked(int64_t step, Token token, Ends ends);
  /// Packed documents: the documents' tokens end to end (in `text`) and
  /// whether each is the last of its document.
  std::vector<bool> documentEnd;
  std::vector<int64_t> ids, labels, positions, localIdsBuf, localLabelsBuf;
};

} // namespace sprt

#endif // SPRT_DRIVER_BATCH_H

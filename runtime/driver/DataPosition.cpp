//===- DataPosition.cpp - where a resumed run reads on ------------------===//

#include "DataPosition.h"

namespace sprt {

namespace {
std::string place(const Batcher &batcher, int64_t epoch, int64_t sample) {
  return "epoch " + std::to_string(epoch) + ", " +
         (batcher.packing() ? "token " : "sample ") + std::to_string(sample);
}
} // namespace

std::string resumeDataPosition(ResumePoint &at, Batcher &batcher,
                               const std::string &checkpointDir,
                               const std::string &dataFile,
                               std::string &warning) {
  const std::string where = "--resume: the checkpoint in '" + checkpointDir;
  if (at.sequences < 0) {
    at.sequences = at.step * batcher.stepBatch();
    warning = where +
              "' does not record the sequences it read "
              "(data_position.sequences_consumed); assuming " +
              std::to_string(batcher.stepBatch()) +
              " per step as this program reads, " +
              std::to_string(at.sequences) + " in all";
  }
  batcher.setOrigin(at.step, at.sequences);
  const Batcher::Position next = batcher.position(at.step + 1);
  const std::string data =
      dataFile.empty() ? "the built-in data" : "--data '" + dataFile + "'";
  if (next.samplesPerEpoch != at.samplesPerEpoch)
    return where + "' read data of " + std::to_string(at.samplesPerEpoch) +
           " samples per epoch but " + data + " has " +
           std::to_string(next.samplesPerEpoch) +
           " (another file, sequence length or --shuffle)";
  // The same sequences on the same data reach the same place unless the
  // sequence length changed (packed data counts tokens).
  if (next.samplesPerEpoch &&
      (next.epoch != at.epoch || next.sample != at.sample))
    return where + "' read " + std::to_string(at.sequences) +
           " sequences, up to " + place(batcher, at.epoch, at.sample) + " of " +
           data + "; this program's " + std::to_string(at.sequences) +
           " sequences end at " + place(batcher, next.epoch, next.sample) +
           " (another sequence length): it cannot read on exactly";
  return "";
}

} // namespace sprt

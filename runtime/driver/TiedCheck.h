//===- TiedCheck.h - the copies of a tied weight stay bitwise equal -*- C++
//-*-===//
//
// With pipeline parallelism a weight read on several stages (GPT-2's tied
// token embedding: the first stage's embedding, the last stage's LM head)
// has one copy on each of them. sp-sync-grads gives every copy the same
// summed gradient, added in stage order, so the copies must stay bitwise
// equal after every update (Megatron-LM #844 is what happens otherwise).
// `--check-tied` checks it after every step: each rank hashes its copy of
// every such parameter (XXH3-64 over the bytes of its shard), the hashes
// are all-gathered over the pipeline axis, and the stages holding a
// parameter must agree; a difference ends the job naming the parameter,
// the step, the stages and their ranks.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_TIEDCHECK_H
#define SPRT_DRIVER_TIEDCHECK_H

#include "Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sprt {

/// The XXH3-64 hash of `bytes` bytes at `data` (the checkpoints' hash).
uint64_t hashBytes(const void *data, int64_t bytes);

/// The parameters several pipeline stages hold (indices into model.params).
std::vector<int64_t> tiedParams(const Model &model);

/// The comparison itself. `gathered` holds, for each stage s of the
/// pipeline (`stages` of them), 1 + tied.size() words: the world rank of
/// that stage's rank, then its hash of each tied parameter (ignored where
/// the stage does not hold it). Returns "" when the holders of each agree,
/// else a message naming the first parameter whose copies differ.
std::string compareTiedCopies(const Model &model,
                              const std::vector<int64_t> &tied,
                              const std::vector<uint64_t> &gathered,
                              int64_t stages, int64_t step);

/// Runs the check on this rank after step `step` (collective over the
/// world: every rank calls it); `shards` are the parameters' device
/// pointers (Params::pointers). Ends the job on a difference.
void checkTiedCopies(const Model &model, float *const *shards, int64_t step);

} // namespace sprt

#endif // SPRT_DRIVER_TIEDCHECK_H

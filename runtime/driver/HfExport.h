//===- HfExport.h - a Hugging Face model directory --------------*- C++ -*-===//
//
// --export-hf DIR writes what transformers' from_pretrained loads: the
// config.json sp-import read (embedded in the program, "torch_dtype" set to
// the exported type) and the parameters under their Hugging Face names, in
// model.safetensors, or above a size in model-0000K-of-0000N.safetensors
// with model.safetensors.index.json. A tied LM head is the token embedding
// and is not written (as save_pretrained omits it).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_HFEXPORT_H
#define SPRT_DRIVER_HFEXPORT_H

#include "Params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sprt {

/// Hugging Face's default max_shard_size, "5GB".
constexpr int64_t kDefaultExportShardBytes = 5'000'000'000;

/// The shards of an export: parameter indices, in order, grouped so that
/// each group's bytes (`bytes[i]` for parameter i) stay within `maxBytes`
/// (a larger tensor alone in its own).
std::vector<std::vector<int64_t>> planShards(const std::vector<int64_t> &bytes,
                                             int64_t maxBytes);

/// Why `dir` cannot receive an export ("" if it can): it may be missing,
/// empty, or a previous export (config.json and model*.safetensors*
/// only), which the export replaces.
std::string exportDirProblem(const std::string &dir);

/// Writes the export of `params` to `dir` (collective: every rank calls it,
/// rank 0 writes) through a temporary directory renamed at the end, so that
/// a failure leaves no partial directory. False with `error` set (every
/// rank).
bool exportHf(const Model &model, Params &params, const std::string &dir,
              int64_t maxShardBytes, std::string &error);

} // namespace sprt

#endif // SPRT_DRIVER_HFEXPORT_H

//===- SafeTensors.h - read and write .safetensors files --------*- C++ -*-===//
//
// The format: an 8-byte little-endian header length, a JSON header mapping
// tensor names to {dtype, shape, data_offsets}, then the raw little-endian
// data. Hugging Face sharded checkpoints add model.safetensors.index.json
// whose "weight_map" maps tensor names to shard files.
//
// Files seqpar writes carry, in the header's "__metadata__", an XXH3-64
// checksum of every tensor's bytes ("xxh3_64:NAME": 16 hex digits), checked
// whenever the tensor is read; files without them (Hugging Face's) are read
// unchecked.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_SAFETENSORS_H
#define SPRT_DRIVER_SAFETENSORS_H

#include "FileIO.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sprt {

struct TensorInfo {
  std::string name;
  std::string dtype; // "F32", "I64", ...
  std::vector<int64_t> shape;
  std::string file;
  uint64_t begin = 0, end = 0; // absolute file offsets of the data
  std::string checksum;        // XXH3-64 in hex, or empty if none stored
};

/// The "__metadata__" of a safetensors file (string to string).
using Metadata = std::map<std::string, std::string>;

/// The tensors of a checkpoint: one .safetensors file, or a Hugging Face
/// index (*.index.json) of several. Returns false with `error` set.
bool readCheckpointIndex(const std::string &path,
                         std::map<std::string, TensorInfo> &tensors,
                         std::string &error);

/// The metadata of one .safetensors file. False with `error` set.
bool readMetadata(const std::string &file, Metadata &metadata,
                  std::string &error);

/// Reads a tensor's bytes and checks them against its stored checksum.
/// Returns false with `error` set.
bool readTensorData(const TensorInfo &info, std::vector<char> &data,
                    std::string &error);

struct TensorToWrite {
  std::string name, dtype;
  std::vector<int64_t> shape;
  const void *data;
  uint64_t bytes;
};

/// Writes a .safetensors file to `path` through a temporary file renamed at
/// the end, so a reader never sees a partial file, with every tensor's
/// checksum and `metadata` in its header. Returns false with `error` set.
bool writeSafeTensors(const std::string &path,
                      const std::vector<TensorToWrite> &tensors,
                      std::string &error, const Metadata &metadata = {});

/// A .safetensors file written a tensor at a time, each checksummed as it
/// is written (one pass over the data): open() writes the header with
/// placeholder checksums of the final length, append() each tensor of
/// `layout` in order (their `data` is not read), commit() rewrites the
/// header with the checksums and renames the file into place (AtomicFile: a
/// file not committed is removed).
class SafeTensorsWriter {
public:
  bool open(const std::string &path, const std::vector<TensorToWrite> &layout,
            const Metadata &metadata, std::string &error);
  bool append(const void *data, uint64_t bytes, std::string &error);
  bool commit(std::string &error);

private:
  std::string header() const;

  AtomicFile file;
  std::vector<TensorToWrite> layout;
  Metadata metadata;
  std::vector<std::string> checksums;
};

/// Rewrites `into` with its tensors and those of `from` (then removes
/// `from`), keeping `into`'s metadata. False with `error` set.
bool mergeSafeTensors(const std::string &into, const std::string &from,
                      std::string &error);

} // namespace sprt

#endif // SPRT_DRIVER_SAFETENSORS_H

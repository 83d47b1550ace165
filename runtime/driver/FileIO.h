//===- FileIO.h - checked file reads and writes -----------------*- C++ -*-===//
//
// Every file a compiled program reads is checked to be a regular file before
// it is opened (a directory, a FIFO or a device is an error naming the flag's
// file, never a hang or an endless read), and every byte it writes is
// checked: a short write, ENOSPC or EFBIG fails the run with the file and the
// reason, and files other programs read (dumps, checkpoints) appear only
// complete, through a temporary renamed after fsync.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_FILEIO_H
#define SPRT_DRIVER_FILEIO_H

#include <cstddef>
#include <string>

namespace sprt {

/// Empty if `path` is a regular file; otherwise why not ("does not exist",
/// "is a directory", "is a FIFO", ...).
std::string notRegularFile(const std::string &path);

/// Writes a file at `path` through `path.tmp`: write() all parts, then
/// commit() fsyncs, closes and renames. A file not committed is removed.
class AtomicFile {
public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  ~AtomicFile();

  bool open(const std::string &path, std::string &error);
  bool write(const void *data, size_t bytes, std::string &error);
  /// Overwrites bytes already written, from `offset`.
  bool writeAt(uint64_t offset, const void *data, size_t bytes,
               std::string &error);
  bool commit(std::string &error);

private:
  std::string path, tmp;
  int fd = -1;
};

/// Writes `text` to `path` as an AtomicFile.
bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &error);

/// A log written a line at a time with write(2): each line is on disk (in
/// the page cache) when append() returns true; a line that fails part-way
/// is removed again (a regular file holds whole lines only).
class LineFile {
public:
  LineFile() = default;
  LineFile(const LineFile &) = delete;
  LineFile &operator=(const LineFile &) = delete;
  ~LineFile();

  /// Creates or truncates `path`, or with `append` adds to its end.
  bool open(const std::string &path, bool append, std::string &error);
  bool isOpen() const { return fd >= 0; }
  bool append(const std::string &line, std::string &error);
  bool close(std::string &error);

private:
  std::string path;
  int fd = -1;
};

} // namespace sprt

#endif // SPRT_DRIVER_FILEIO_H

//===- FileIO.cpp - checked file reads and writes -------------------------===//

#include "FileIO.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sprt;

std::string sprt::notRegularFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return std::strerror(errno);
  if (S_ISREG(st.st_mode))
    return "";
  if (S_ISDIR(st.st_mode))
    return "is a directory, not a file";
  if (S_ISFIFO(st.st_mode))
    return "is a FIFO, not a regular file";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    return "is a device, not a regular file";
  return "is not a regular file";
}

/// write(2) (or pwrite(2) from `offset` when it is not negative) until
/// every byte is written or it fails.
static bool writeAll(int fd, const void *data, size_t bytes,
                     const std::string &path, std::string &error,
                     off_t offset = -1) {
  const char *at = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t n =
        offset < 0 ? ::write(fd, at, bytes) : ::pwrite(fd, at, bytes, offset);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write '" + path +
              "': " + (n < 0 ? std::strerror(errno) : "short write");
      return false;
    }
    at += n;
    bytes -= size_t(n);
    if (offset >= 0)
      offset += n;
  }
  return true;
}

AtomicFile::~AtomicFile() {
  if (fd >= 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
  }
}

bool AtomicFile::open(const std::string &target, std::string &error) {
  path = target;
  tmp = target + ".tmp";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = "cannot write '" + path + "': " + notRegularFile(path);
    return false;
  }
  fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot write '" + tmp + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool AtomicFile::write(const void *data, size_t bytes, std::string &error) {
  return writeAll(fd, data, bytes, tmp, error);
}

bool AtomicFile::writeAt(uint64_t offset, const void *data, size_t bytes,
                         std::string &error) {
  return writeAll(fd, data, bytes, tmp, error, off_t(offset));
}

bool AtomicFile::commit(std::string &error) {
  // fsync: the rename must not reach the disk before the data does.
  int err = 0;
  if (::fsync(fd) != 0 && errno != EINVAL)
    err = errno;
  if (::close(fd) != 0 && !err)
    err = errno;
  fd = -1;
  if (err) {
    error = "cannot write '" + tmp + "': " + std::strerror(err);
    ::unlink(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path +
            "': " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool sprt::writeFileAtomically(const std::string &path, const std::string &text,
                               std::string &error) {
  AtomicFile file;
  return file.open(path, error) &&
         file.write(text.data(), text.size(), error) && file.commit(error);
}

LineFile::~LineFile() {
  if (fd >= 0)
    ::close(fd);
}

bool LineFile::open(const std::string &target, bool append,
                    std::string &error) {
  path = target;
  fd = ::open(path.c_str(),
              O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
              0644);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool LineFile::append(const std::string &line, std::string &error) {
  struct stat st;
  bool sized = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (writeAll(fd, line.data(), line.size(), path, error))
    return true;
  // A line cut short (a full disk, a size limit) is taken back: the log
  // holds whole lines only.
  if (sized && ::ftruncate(fd, st.st_size) != 0)
    error += " (and the partial line could not be removed)";
  return false;
}

bool LineFile::close(std::string &error) {
  if (fd < 0)
    return true;
  bool ok = ::close(fd) == 0;
  fd = -1;
  if (!ok)
    error = "cannot write '" + path + "': " + std::strerror(errno);
  return ok;
}

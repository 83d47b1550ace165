//===- FlagsTestUtil.h - parsing a program's flags in gtests ----*- C++ -*-===//

#ifndef SPRT_TESTS_FLAGSTESTUTIL_H
#define SPRT_TESTS_FLAGSTESTUTIL_H

#include "../driver/Flags.h"

#include <string>
#include <vector>

/// parseFlags on `prog args...`.
inline bool parse(std::vector<std::string> args, sprt::Flags &f,
                  std::string &error) {
  std::vector<char *> argv{const_cast<char *>("prog")};
  for (std::string &a : args)
    argv.push_back(a.data());
  bool help = false;
  return sprt::parseFlags(int(argv.size()), argv.data(), f, help, error);
}

#endif // SPRT_TESTS_FLAGSTESTUTIL_H

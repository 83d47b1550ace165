//===- cu2cpp.cpp - CUDA sources as C++ for the CPU emulator --------------===//
//
// Usage: cu2cpp IN OUT. Rewrites the two CUDA constructs a C++ compiler
// cannot parse, leaving everything else as it is:
//   callee<<<config>>>(args)   ->  ::sprt_emu::launch({config}, "callee",
//                                    [=](auto &&...a) { callee(a...); }, args)
//   extern __shared__ T n[];   ->  T *n = ::sprt_emu::dynamicShared<T>();
// The callee is found backwards from `<<<`: names joined by `::`, each with
// an optional template argument list. The result is compiled with the
// emulator's prelude (SprtEmu.h) force-included.
//
//===----------------------------------------------------------------------===//

#include <cctype>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>

namespace {

[[noreturn]] void fail(const std::string &file, const std::string &what) {
  std::cerr << "cu2cpp: " << file << ": " << what << "\n";
  std::exit(1);
}

bool isIdent(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

/// The start of the callee that ends just before `end`.
size_t calleeStart(const std::string &s, size_t end, const std::string &file) {
  size_t p = end;
  auto skipSpace = [&] {
    while (p > 0 && std::isspace((unsigned char)s[p - 1]))
      --p;
  };
  while (true) {
    skipSpace();
    if (p > 0 && s[p - 1] == '>') { // a template argument list
      int depth = 0;
      while (p > 0) {
        char c = s[--p];
        if (c == '>' || c == ')')
          ++depth;
        else if (c == '<' || c == '(')
          --depth;
        if (depth == 0)
          break;
      }
      skipSpace();
    }
    size_t identEnd = p;
    while (p > 0 && isIdent(s[p - 1]))
      --p;
    if (p == identEnd)
      fail(file, "no kernel name before <<< at offset " + std::to_string(end));
    size_t q = p;
    while (q > 0 && std::isspace((unsigned char)s[q - 1]))
      --q;
    if (q >= 2 && s[q - 1] == ':' && s[q - 2] == ':') {
      p = q - 2;
      continue;
    }
    return p;
  }
}

/// The index just past the `)` matching the `(` at `open`.
size_t closeParen(const std::string &s, size_t open, const std::string &file) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(')
      ++depth;
    else if (s[i] == ')' && --depth == 0)
      return i + 1;
  }
  fail(file, "unbalanced kernel arguments at offset " + std::to_string(open));
}

std::string rewriteLaunches(std::string s, const std::string &file) {
  size_t at;
  while ((at = s.find("<<<")) != std::string::npos) {
    size_t start = calleeStart(s, at, file);
    size_t configEnd = s.find(">>>", at);
    if (configEnd == std::string::npos)
      fail(file, "<<< without >>>");
    std::string callee = s.substr(start, at - start);
    std::string config = s.substr(at + 3, configEnd - at - 3);
    size_t open = configEnd + 3;
    while (open < s.size() && std::isspace((unsigned char)s[open]))
      ++open;
    if (open >= s.size() || s[open] != '(')
      fail(file, "no arguments after >>>");
    size_t close = closeParen(s, open, file);
    std::string args = s.substr(open + 1, close - open - 2);
    bool noArgs = args.find_first_not_of(" \t\n\\") == std::string::npos;
    std::string name = std::regex_replace(callee, std::regex(R"(\s+)"), " ");
    std::string call = "::sprt_emu::launch(::sprt_emu::Config{" + config +
                       "}, \"" + name + "\", [=](auto &&...a) { " + callee +
                       "(a...); }" + (noArgs ? "" : ", " + args) + ")";
    s.replace(start, close - start, call);
  }
  return s;
}

std::string rewriteShared(const std::string &s) {
  static const std::regex dynamic(
      R"(extern\s+__shared__\s+([A-Za-z_][A-Za-z0-9_:]*)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\[\s*\]\s*;)");
  return std::regex_replace(s, dynamic,
                            "$1 *$2 = ::sprt_emu::dynamicShared<$1>();");
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: cu2cpp IN OUT\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in)
    fail(argv[1], "cannot be read");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string out = rewriteShared(rewriteLaunches(buf.str(), argv[1]));
  std::ofstream o(argv[2]);
  o << out;
  if (!o)
    fail(argv[2], "cannot be written");
  return 0;
}

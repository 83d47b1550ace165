//===- AbiLinkTest.cpp - every entry point of sprt/abi.def is defined -----===//
//
// Takes the address of every libsprt function sprt/abi.def declares, so a
// function the table declares and a backend does not define fails this
// test's link (compiled once per backend, as a program links it). The
// prototypes themselves are checked against the table by every runtime
// file that includes a documented header (sprt/abi.h).
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include "gtest/gtest.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using AnyFunction = void (*)();

std::vector<std::pair<std::string, AnyFunction>> entryPoints() {
  return {
#define SPRT_FUNC(result, name, params)                                        \
  {#name, reinterpret_cast<AnyFunction>(&name)},
#include "sprt/abi.def"
  };
}

TEST(RuntimeAbi, EveryDeclaredEntryPointIsDefined) {
  std::vector<std::pair<std::string, AnyFunction>> fns = entryPoints();
  // The table is the lowering's whole vocabulary: dozens of functions.
  EXPECT_GT(fns.size(), 60u);
  std::set<std::string> names;
  for (const auto &[name, fn] : fns) {
    EXPECT_NE(fn, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " is declared twice";
    EXPECT_EQ(name.rfind("sprt_", 0), 0u) << name;
  }
}

TEST(RuntimeAbi, DtypeCodesAreTheTables) {
  EXPECT_EQ(SPRT_DTYPE_F32, 0);
  EXPECT_EQ(SPRT_DTYPE_BF16, 1);
  EXPECT_EQ(SPRT_DTYPE_F16, 2);
}

} // namespace

//===- LayoutAttrTest.cpp - #dist.layout C++ API --------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace seqpar::dist;

namespace {
class LayoutAttrTest : public ::testing::Test {
protected:
  LayoutAttrTest() { ctx.loadDialect<DistDialect>(); }
  MLIRContext ctx;
};
} // namespace

TEST_F(LayoutAttrTest, SortsAxesAndDropsReplicated) {
  auto a = LayoutAttr::get(&ctx, {{"tp", Sharding::split(0)},
                                  {"dp", Sharding::split(1)},
                                  {"cp", Sharding::replicated()}});
  auto b = LayoutAttr::get(
      &ctx, {{"dp", Sharding::split(1)}, {"tp", Sharding::split(0)}});
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.getAxes().size(), 2u);
  EXPECT_EQ(a.getAxes()[0].getValue(), "dp");
  EXPECT_EQ(a.getAxes()[1].getValue(), "tp");
}

TEST_F(LayoutAttrTest, QueriesAndUpdates) {
  auto l = LayoutAttr::get(&ctx, {{"tp", Sharding::partial()}});
  EXPECT_TRUE(l.getSharding("tp").isPartial());
  EXPECT_TRUE(l.getSharding("dp").isReplicated());
  LayoutAttr s = l.with("tp", Sharding::split(0));
  EXPECT_EQ(s.getSharding("tp"), Sharding::split(0));
  EXPECT_NE(s.getSharding("tp"), Sharding::split(1));
  EXPECT_EQ(s.with("tp", Sharding::replicated()).getAxes().size(), 0u);
  EXPECT_EQ(Sharding::split(2).str(), "S(2)");
  EXPECT_EQ(Sharding::partial().str(), "P");
  EXPECT_EQ(Sharding::replicated().str(), "R");
}

TEST_F(LayoutAttrTest, FromTypeReadsTheEncoding) {
  auto l = LayoutAttr::get(&ctx, {{"tp", Sharding::split(0)}});
  auto f32 = FloatType::getF32(&ctx);
  EXPECT_EQ(LayoutAttr::fromType(RankedTensorType::get({4, 2}, f32, l)), l);
  EXPECT_FALSE(LayoutAttr::fromType(RankedTensorType::get({4, 2}, f32)));
  EXPECT_FALSE(LayoutAttr::fromType(f32));
}

TEST_F(LayoutAttrTest, ParsesAndPrintsCanonically) {
  Attribute a = parseAttribute("#dist.layout<tp = S(0), dp = P, cp = R>", &ctx);
  ASSERT_TRUE(a);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  a.print(os);
  EXPECT_EQ(os.str(), "#dist.layout<dp = P, tp = S(0)>");
}

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
  FlatSymbolRefAttr mesh = FlatSymbolRefAttr::get(&ctx, "mesh");
};
} // namespace

TEST_F(LayoutAttrTest, SortsAxesAndDropsReplicated) {
  auto a = LayoutAttr::get(&ctx, mesh,
                           {{"tp", Sharding::split(0)},
                            {"dp", Sharding::split(1)},
                            {"cp", Sharding::replicated()}});
  auto b = LayoutAttr::get(
      &ctx, mesh, {{"dp", Sharding::split(1)}, {"tp", Sharding::split(0)}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.getMesh(), mesh);
  // The same entries on another mesh are another layout.
  auto other =
      LayoutAttr::get(&ctx, FlatSymbolRefAttr::get(&ctx, "other"),
                      {{"dp", Sharding::split(1)}, {"tp", Sharding::split(0)}});
  EXPECT_NE(a, other);
  ASSERT_EQ(a.getAxes().size(), 2u);
  EXPECT_EQ(a.getAxes()[0].getValue(), "dp");
  EXPECT_EQ(a.getAxes()[1].getValue(), "tp");
}

TEST_F(LayoutAttrTest, QueriesAndUpdates) {
  auto l = LayoutAttr::get(&ctx, mesh, {{"tp", Sharding::partial()}});
  EXPECT_TRUE(l.getSharding("tp").isPartial());
  EXPECT_TRUE(l.getSharding("dp").isReplicated());
  LayoutAttr s = l.with("tp", Sharding::split(0));
  EXPECT_EQ(s.getSharding("tp"), Sharding::split(0));
  EXPECT_NE(s.getSharding("tp"), Sharding::split(1));
  EXPECT_EQ(s.getMesh(), mesh);
  LayoutAttr none = s.with("tp", Sharding::replicated());
  EXPECT_EQ(none.getAxes().size(), 0u);
  EXPECT_EQ(none.getMesh(), mesh);
  EXPECT_EQ(Sharding::split(2).str(), "S(2)");
  EXPECT_EQ(Sharding::partial().str(), "P");
  EXPECT_EQ(Sharding::replicated().str(), "R");
}

TEST_F(LayoutAttrTest, FromTypeReadsTheEncoding) {
  auto l = LayoutAttr::get(&ctx, mesh, {{"tp", Sharding::split(0)}});
  auto f32 = FloatType::getF32(&ctx);
  EXPECT_EQ(LayoutAttr::fromType(RankedTensorType::get({4, 2}, f32, l)), l);
  EXPECT_FALSE(LayoutAttr::fromType(RankedTensorType::get({4, 2}, f32)));
  EXPECT_FALSE(LayoutAttr::fromType(f32));
}

TEST_F(LayoutAttrTest, OfTypeOfAnUnannotatedType) {
  auto t = RankedTensorType::get({4, 2}, FloatType::getF32(&ctx));
  LayoutAttr none = LayoutAttr::ofType(t);
  EXPECT_TRUE(none.getAxes().empty());
  EXPECT_FALSE(none.getMesh());
  LayoutAttr onMesh = LayoutAttr::ofType(t, mesh);
  EXPECT_EQ(onMesh.getMesh(), mesh);
  // A layout without a mesh takes one when it gets an entry.
  EXPECT_EQ(none.with(mesh, "tp", Sharding::partial()),
            onMesh.with("tp", Sharding::partial()));
}

TEST_F(LayoutAttrTest, ParsesAndPrintsCanonically) {
  Attribute a =
      parseAttribute("#dist.layout<@mesh, tp = S(0), dp = P, cp = R>", &ctx);
  ASSERT_TRUE(a);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  a.print(os);
  EXPECT_EQ(os.str(), "#dist.layout<@mesh, dp = P, tp = S(0)>");
}

TEST_F(LayoutAttrTest, ParsesTheEmptyLayout) {
  auto onMesh =
      dyn_cast_or_null<LayoutAttr>(parseAttribute("#dist.layout<@mesh>", &ctx));
  ASSERT_TRUE(onMesh);
  EXPECT_EQ(onMesh, LayoutAttr::get(&ctx, mesh, {}));
  auto noMesh =
      dyn_cast_or_null<LayoutAttr>(parseAttribute("#dist.layout<>", &ctx));
  ASSERT_TRUE(noMesh);
  EXPECT_FALSE(noMesh.getMesh());
  EXPECT_NE(onMesh, noMesh);
}

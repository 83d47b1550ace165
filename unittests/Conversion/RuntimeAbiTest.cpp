//===- RuntimeAbiTest.cpp - the compiler's reading of sprt/abi.def --------===//

#include "RuntimeAbi.h"

#include "seqpar/Conversion/RuntimeLoweringInterface.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include "sprt/abi.h"

#include "gtest/gtest.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::sptoruntime;

namespace {

class RuntimeAbiTest : public ::testing::Test {
protected:
  MLIRContext ctx;
  // The LLVM types need their dialect (the lowering's context has it).
  LLVM::LLVMDialect *llvmDialect = ctx.getOrLoadDialect<LLVM::LLVMDialect>();
  Builder b{&ctx};
  Type ptr = LLVM::LLVMPointerType::get(&ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f64 = b.getF64Type();
};

TEST_F(RuntimeAbiTest, ReadsTheTable) {
  // sprt_send(const void *in, int64_t bytes, int64_t offset, int32_t axis).
  const RuntimeFunction *send = lookupRuntimeFunction("sprt_send");
  ASSERT_TRUE(send);
  EXPECT_FALSE(send->program);
  EXPECT_EQ(llvmFunctionType(*send, &ctx),
            LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&ctx),
                                        {ptr, i64, i64, i32}));
  // int64_t sprt_axis_coord(int32_t axis).
  const RuntimeFunction *coord = lookupRuntimeFunction("sprt_axis_coord");
  ASSERT_TRUE(coord);
  EXPECT_EQ(llvmFunctionType(*coord, &ctx),
            LLVM::LLVMFunctionType::get(i64, {i32}));
  // The program's symbols: the step required, the evaluation step weak.
  const RuntimeFunction *step = lookupRuntimeFunction("seqpar_step");
  ASSERT_TRUE(step);
  EXPECT_TRUE(step->program && !step->weak);
  EXPECT_EQ(step->params.size(), 8u);
  const RuntimeFunction *eval = lookupRuntimeFunction("seqpar_eval");
  ASSERT_TRUE(eval);
  EXPECT_TRUE(eval->program && eval->weak);
  ASSERT_EQ(programData().size(), 1u);
  EXPECT_EQ(programData().front(), "seqpar_model_json");
  EXPECT_EQ(lookupRuntimeFunction("sprt_no_such_function"), nullptr);
}

TEST_F(RuntimeAbiTest, EveryEntryIsWellFormed) {
  ASSERT_GT(runtimeFunctions().size(), 60u);
  for (const RuntimeFunction &f : runtimeFunctions()) {
    EXPECT_EQ(lookupRuntimeFunction(f.name), &f) << f.name.str();
    EXPECT_TRUE(f.name.starts_with(f.program ? "seqpar_" : "sprt_"))
        << f.name.str();
    for (AbiKind k : f.params)
      EXPECT_NE(k, AbiKind::Void) << f.name.str();
  }
}

TEST_F(RuntimeAbiTest, NamesEachMismatch) {
  Type none;
  EXPECT_EQ(abiMismatch("sprt_send", {ptr, i64, i64, i32}, none, &ctx), "");
  EXPECT_EQ(abiMismatch("sprt_sned", {ptr, i64, i64, i32}, none, &ctx),
            "calls 'sprt_sned', which runtime/include/sprt/abi.def does "
            "not declare");
  EXPECT_EQ(abiMismatch("sprt_send", {ptr, i64, i64}, none, &ctx),
            "calls 'sprt_send' with 3 arguments; sprt/abi.def declares 4");
  EXPECT_EQ(abiMismatch("sprt_send", {ptr, i64, i64, i64}, none, &ctx),
            "calls 'sprt_send' with argument 3 of type i64; sprt/abi.def "
            "declares i32");
  EXPECT_EQ(abiMismatch("sprt_send", {ptr, i64, i64, i32}, i64, &ctx),
            "calls 'sprt_send' for a result of type i64; sprt/abi.def "
            "declares !llvm.void");
  EXPECT_EQ(abiMismatch("sprt_op_scale", {ptr, ptr, i64, f64}, none, &ctx), "");
}

TEST_F(RuntimeAbiTest, NamesEachBundleMismatch) {
  // sprt_attention_args: 6 i64, 2 f64, 1 i64, 5 i32.
  SmallVector<Type> fields(6, i64);
  fields.append({f64, f64, i64, i32, i32, i32, i32, i32});
  EXPECT_EQ(bundleMismatch("sprt_attention_args", fields, &ctx), "");
  EXPECT_EQ(bundleMismatch("sprt_attn_args", fields, &ctx),
            "builds 'sprt_attn_args', which runtime/include/sprt/abi.def "
            "does not declare");
  EXPECT_EQ(bundleMismatch("sprt_attention_args",
                           ArrayRef<Type>(fields).drop_back(), &ctx),
            "builds 'sprt_attention_args' of 13 fields; sprt/abi.def "
            "declares 14");
  fields[6] = f64;
  fields[7] = i64;
  EXPECT_EQ(bundleMismatch("sprt_attention_args", fields, &ctx),
            "builds 'sprt_attention_args' with field 7 (dropout_rate) of type "
            "i64; sprt/abi.def declares f64");
}

// Both sides lay each bundle out alike: the C struct of sprt/abi.h has no
// padding between its fields (the table orders them widest first), so its
// offsets are the sizes of the fields before, as in the LLVM struct the
// lowering builds, and the two have the same size.
TEST_F(RuntimeAbiTest, BundlesHaveOneLayout) {
  struct CStruct {
    std::string name;
    size_t size;
    std::vector<std::pair<size_t, size_t>> fields; // (offset, size)
  };
  std::vector<CStruct> c;
#define I32(n) {offsetof(T, n), sizeof(T::n)},
#define I64(n) {offsetof(T, n), sizeof(T::n)},
#define F64(n) {offsetof(T, n), sizeof(T::n)},
#define SPRT_STRUCT(name, fields)                                              \
  {                                                                            \
    using T = name;                                                            \
    c.push_back({#name, sizeof(T), {fields}});                                 \
  }
#include "sprt/abi.def"
  ASSERT_EQ(c.size(), runtimeBundles().size());
  ASSERT_FALSE(c.empty());
  DataLayout layout;
  for (auto [cs, bundle] : llvm::zip(c, runtimeBundles())) {
    EXPECT_EQ(cs.name, bundle.name.str());
    ASSERT_EQ(cs.fields.size(), bundle.fields.size()) << cs.name;
    size_t at = 0;
    for (auto [field, declared] : llvm::zip(cs.fields, bundle.fields)) {
      EXPECT_EQ(field.first, at) << cs.name << "." << declared.second.str();
      EXPECT_EQ(field.second,
                layout.getTypeSize(llvmType(declared.first, &ctx)))
          << cs.name << "." << declared.second.str();
      at += field.second;
    }
    EXPECT_EQ(cs.size, layout.getTypeSize(llvmStructType(bundle, &ctx)))
        << cs.name;
  }
}

TEST_F(RuntimeAbiTest, DtypeCodesComeFromTheTable) {
  EXPECT_EQ(runtimeDtypeCode(b.getF32Type()), 0);
  EXPECT_EQ(runtimeDtypeCode(b.getBF16Type()), 1);
  EXPECT_EQ(runtimeDtypeCode(b.getF16Type()), 2);
}

} // namespace

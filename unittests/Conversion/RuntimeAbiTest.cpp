//===- RuntimeAbiTest.cpp - the compiler's reading of sprt/abi.def --------===//

#include "RuntimeAbi.h"

#include "seqpar/Conversion/RuntimeLoweringInterface.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

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

TEST_F(RuntimeAbiTest, DtypeCodesComeFromTheTable) {
  EXPECT_EQ(runtimeDtypeCode(b.getF32Type()), 0);
  EXPECT_EQ(runtimeDtypeCode(b.getBF16Type()), 1);
  EXPECT_EQ(runtimeDtypeCode(b.getF16Type()), 2);
}

} // namespace

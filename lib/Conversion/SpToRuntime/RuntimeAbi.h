//===- RuntimeAbi.h - libsprt entry points from sprt/abi.def ----*- C++ -*-===//
//
// The compiler's reading of runtime/include/sprt/abi.def, the one table of
// the compiler-runtime contract: every libsprt function a program may call
// and the symbols the program defines, each argument a kind (a pointer, i32,
// i64 or f64). The lowering declares each callee from this table and
// refuses a call it does not declare.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_CONVERSION_SPTORUNTIME_RUNTIMEABI_H
#define SEQPAR_LIB_CONVERSION_SPTORUNTIME_RUNTIMEABI_H

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace seqpar::sptoruntime {

/// What one argument or result of a runtime function is at the LLVM level.
enum class AbiKind { Void, Ptr, I32, I64, F64 };

/// One function of sprt/abi.def.
struct RuntimeFunction {
  llvm::StringRef name;
  AbiKind result;
  std::vector<AbiKind> params;
  /// Defined by the compiled program (seqpar_step), not by libsprt; `weak`:
  /// the program may leave it out.
  bool program = false, weak = false;
};

/// One argument bundle of sprt/abi.def (SPRT_STRUCT): a C struct the
/// program builds on the stack and passes by address.
struct RuntimeBundle {
  llvm::StringRef name;
  /// Its fields, in order: (kind, name).
  std::vector<std::pair<AbiKind, llvm::StringRef>> fields;
};

/// Every function of sprt/abi.def, in its order.
llvm::ArrayRef<RuntimeFunction> runtimeFunctions();
/// The function `name` of sprt/abi.def, or null.
const RuntimeFunction *lookupRuntimeFunction(llvm::StringRef name);
/// The bundle `name` of sprt/abi.def, or null.
const RuntimeBundle *lookupRuntimeBundle(llvm::StringRef name);
/// Every bundle of sprt/abi.def, in its order.
llvm::ArrayRef<RuntimeBundle> runtimeBundles();
/// The LLVM struct a bundle is built as (the fields' types, not packed: the
/// C struct's layout).
mlir::LLVM::LLVMStructType llvmStructType(const RuntimeBundle &bundle,
                                          mlir::MLIRContext *ctx);
/// Why fields of types `fields` do not build bundle `name`, or empty when
/// they do.
std::string bundleMismatch(llvm::StringRef name, mlir::TypeRange fields,
                           mlir::MLIRContext *ctx);
/// The symbols the program defines as data (seqpar_model_json).
llvm::ArrayRef<llvm::StringRef> programData();
/// The format version of seqpar_model_json (sprt/model_json.def).
int64_t modelFormatVersion();
/// The LLVM type of a kind (void: LLVMVoidType).
mlir::Type llvmType(AbiKind kind, mlir::MLIRContext *ctx);
/// The LLVM function type `f` is declared with.
mlir::LLVM::LLVMFunctionType llvmFunctionType(const RuntimeFunction &f,
                                              mlir::MLIRContext *ctx);
/// Why a call of `name` with `args` expecting `result` (null: void) does not
/// match sprt/abi.def, or empty when it does.
std::string abiMismatch(llvm::StringRef name, mlir::TypeRange args,
                        mlir::Type result, mlir::MLIRContext *ctx);

} // namespace seqpar::sptoruntime

#endif // SEQPAR_LIB_CONVERSION_SPTORUNTIME_RUNTIMEABI_H

//===- RuntimeAbi.cpp - the runtime's entry points, from sprt/abi.def -----===//

#include "RuntimeAbi.h"

#include "seqpar/Conversion/RuntimeLoweringInterface.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::sptoruntime;

namespace {
struct Table {
  std::vector<RuntimeFunction> functions;
  llvm::StringMap<size_t> byName;
  std::vector<RuntimeBundle> bundles;
  std::vector<StringRef> data;
  std::vector<std::pair<StringRef, int64_t>> dtypes, documents;

  Table() {
    // The kinds of sprt/abi.def, as the LLVM level sees them.
    constexpr AbiKind VOID = AbiKind::Void, I64 = AbiKind::I64;
#define F32P(n) AbiKind::Ptr
#define CF32P(n) AbiKind::Ptr
#define F32PP(n) AbiKind::Ptr
#define F32PPW(n) AbiKind::Ptr
#define CF32PP(n) AbiKind::Ptr
#define I64P(n) AbiKind::Ptr
#define CI64P(n) AbiKind::Ptr
#define VP(n) AbiKind::Ptr
#define CVP(n) AbiKind::Ptr
#define VPP(n) AbiKind::Ptr
#define CVPP(n) AbiKind::Ptr
#define CHARP(n) AbiKind::Ptr
#define CSTR(n) AbiKind::Ptr
#define CF64P(n) AbiKind::Ptr
#define I32(n) AbiKind::I32
#define I64(n) AbiKind::I64
#define F64(n) AbiKind::F64
#define SPRT_ABI_PARAMS(...)                                                   \
  std::vector<AbiKind> { __VA_ARGS__ }
#define SPRT_FUNC(result, name, params)                                        \
  functions.push_back({#name, result, SPRT_ABI_PARAMS params});
#define SPRT_PROGRAM_FUNC(linkage, name, params)                               \
  functions.push_back({#name, VOID, SPRT_ABI_PARAMS params, true,              \
                       StringRef(#linkage) == "WEAK"});
#define SPRT_PROGRAM_DATA(name) data.push_back(#name);
#define SPRT_DTYPE(name, code) dtypes.push_back({#name, code});
#define SPRT_DOCUMENTS(name, code) documents.push_back({#name, code});
#define CBUNDLE(type, n) AbiKind::Ptr
#include "sprt/abi.def"
#undef SPRT_ABI_PARAMS
    // The bundles' fields, each KIND(name) with no comma between them.
#define I32(n) {AbiKind::I32, #n},
#define I64(n) {AbiKind::I64, #n},
#define F64(n) {AbiKind::F64, #n},
#define SPRT_STRUCT(name, fields) bundles.push_back({#name, {fields}});
#include "sprt/abi.def"
    for (size_t i = 0; i < functions.size(); ++i)
      byName[functions[i].name] = i;
  }
};
} // namespace

static const Table &table() {
  static const Table t;
  return t;
}

llvm::ArrayRef<RuntimeFunction> sptoruntime::runtimeFunctions() {
  return table().functions;
}

const RuntimeFunction *sptoruntime::lookupRuntimeFunction(StringRef name) {
  auto it = table().byName.find(name);
  return it == table().byName.end() ? nullptr : &table().functions[it->second];
}

llvm::ArrayRef<StringRef> sptoruntime::programData() { return table().data; }

llvm::ArrayRef<RuntimeBundle> sptoruntime::runtimeBundles() {
  return table().bundles;
}

const RuntimeBundle *sptoruntime::lookupRuntimeBundle(StringRef name) {
  for (const RuntimeBundle &b : table().bundles)
    if (b.name == name)
      return &b;
  return nullptr;
}

LLVM::LLVMStructType sptoruntime::llvmStructType(const RuntimeBundle &bundle,
                                                 MLIRContext *ctx) {
  SmallVector<Type> fields;
  for (const auto &field : bundle.fields)
    fields.push_back(llvmType(field.first, ctx));
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

std::string sptoruntime::bundleMismatch(StringRef name, TypeRange fields,
                                        MLIRContext *ctx) {
  std::string why;
  llvm::raw_string_ostream os(why);
  const RuntimeBundle *b = lookupRuntimeBundle(name);
  if (!b) {
    os << "builds '" << name
       << "', which runtime/include/sprt/abi.def does not declare";
    return why;
  }
  if (b->fields.size() != fields.size()) {
    os << "builds '" << name << "' of " << fields.size()
       << " fields; sprt/abi.def declares " << b->fields.size();
    return why;
  }
  for (auto [i, field] : llvm::enumerate(fields)) {
    Type expected = llvmType(b->fields[i].first, ctx);
    if (field != expected) {
      os << "builds '" << name << "' with field " << i << " ("
         << b->fields[i].second << ") of type " << field
         << "; sprt/abi.def declares " << expected;
      return why;
    }
  }
  return why;
}

Type sptoruntime::llvmType(AbiKind kind, MLIRContext *ctx) {
  switch (kind) {
  case AbiKind::Void:
    return LLVM::LLVMVoidType::get(ctx);
  case AbiKind::Ptr:
    return LLVM::LLVMPointerType::get(ctx);
  case AbiKind::I32:
    return IntegerType::get(ctx, 32);
  case AbiKind::I64:
    return IntegerType::get(ctx, 64);
  case AbiKind::F64:
    return Float64Type::get(ctx);
  }
  llvm_unreachable("an AbiKind");
}

LLVM::LLVMFunctionType sptoruntime::llvmFunctionType(const RuntimeFunction &f,
                                                     MLIRContext *ctx) {
  SmallVector<Type> params;
  for (AbiKind k : f.params)
    params.push_back(llvmType(k, ctx));
  return LLVM::LLVMFunctionType::get(llvmType(f.result, ctx), params);
}

std::string sptoruntime::abiMismatch(StringRef name, TypeRange args,
                                     Type result, MLIRContext *ctx) {
  std::string why;
  llvm::raw_string_ostream os(why);
  const RuntimeFunction *f = lookupRuntimeFunction(name);
  if (!f) {
    os << "calls '" << name
       << "', which runtime/include/sprt/abi.def does not declare";
    return why;
  }
  auto where = [&] { os << "calls '" << name << "' "; };
  if (f->params.size() != args.size()) {
    where();
    os << "with " << args.size() << " arguments; sprt/abi.def declares "
       << f->params.size();
    return why;
  }
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg != llvmType(f->params[i], ctx)) {
      where();
      os << "with argument " << i << " of type " << arg
         << "; sprt/abi.def declares " << llvmType(f->params[i], ctx);
      return why;
    }
  Type expected = llvmType(f->result, ctx);
  if ((result ? result : LLVM::LLVMVoidType::get(ctx)) != expected) {
    where();
    os << "for a result of type "
       << (result ? result : LLVM::LLVMVoidType::get(ctx))
       << "; sprt/abi.def declares " << expected;
  }
  return why;
}

int64_t sptoruntime::modelFormatVersion() {
#define SPRT_MODEL_FORMAT(version) return version;
#include "sprt/model_json.def"
}

int64_t seqpar::runtimeDtypeCode(Type t) {
  StringRef name = t.isBF16() ? "BF16" : t.isF16() ? "F16" : "F32";
  for (auto [n, code] : table().dtypes)
    if (n == name)
      return code;
  llvm_unreachable("sprt/abi.def declares F32, BF16 and F16");
}

int64_t seqpar::runtimeDocumentsCode(bool documentCausal, Value positions) {
  StringRef name = !documentCausal ? "NONE"
                   : positions && positions.getDefiningOp<tfm::PositionIdsOp>()
                       ? "STEP_POSITIONS"
                       : "POSITIONS";
  for (auto [n, code] : table().documents)
    if (n == name)
      return code;
  llvm_unreachable("sprt/abi.def declares NONE, POSITIONS and STEP_POSITIONS");
}

//===- HFImport.cpp - Hugging Face config.json to tfm IR ------------------===//

#include "Families.h"

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace seqpar;

Dim ImportTarget::seqLen(ConfigReader &cfg, StringRef maxKey,
                         int64_t maxPositions, bool learnedPositions) const {
  if (options.seqLen < 0) {
    cfg.fail(maxKey, "cannot be used with a negative --seq-len");
    return ConfigReader::dim(maxKey, 1);
  }
  if (options.seqLen == 0)
    return ConfigReader::dim(maxKey, maxPositions);
  if (learnedPositions && options.seqLen > maxPositions)
    cfg.fail(maxKey, "= " + Twine(maxPositions) +
                         " is smaller than --seq-len " + Twine(options.seqLen) +
                         " (the learned position table has no more rows)");
  return {options.seqLen, "--seq-len", "--seq-len", options.seqLen};
}

Dim ImportTarget::batch() const {
  return {options.batch, "--batch", "--batch", options.batch};
}

int64_t seqpar::headDim(ConfigReader &cfg, int64_t hidden, StringRef hiddenKey,
                        int64_t heads, StringRef headsKey) {
  if (hidden % heads != 0) {
    cfg.fail(hiddenKey, "= " + Twine(hidden) + " is not divisible by '" +
                            headsKey + "' = " + Twine(heads));
    return 1;
  }
  return hidden / heads;
}

static llvm::Error error(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The byte offset of the first '[' or '{' (outside strings) that opens
/// more than `maxDepth` levels, if any. llvm::json::parse recurses once per
/// level, so this runs first, on the text: it over-approximates the parser
/// (text after a syntax error is scanned too), never under.
static std::optional<size_t> tooDeep(StringRef json, unsigned maxDepth) {
  unsigned depth = 0;
  for (size_t i = 0, e = json.size(); i < e; ++i) {
    switch (json[i]) {
    case '"':
      // Skip the string, escapes included; an unterminated one ends the text.
      for (++i; i < e && json[i] != '"'; ++i)
        if (json[i] == '\\')
          ++i;
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return i;
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

llvm::Expected<OwningOpRef<ModuleOp>>
seqpar::importHFConfig(StringRef json, const HFImportOptions &options,
                       MLIRContext *context) {
  if (json.size() > kMaxConfigBytes)
    return error(
        options.source + ": more than " + Twine(kMaxConfigBytes >> 20) +
        " MiB, the size limit of a config (" + Twine(json.size()) + " bytes)");
  if (std::optional<size_t> at = tooDeep(json, kMaxJsonDepth))
    return error(options.source + ": JSON nested more than " +
                 Twine(kMaxJsonDepth) + " levels deep at byte offset " +
                 Twine(*at));
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return error(options.source +
                 ": malformed JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return error(options.source + ": expected a JSON object at the top level");
  if (options.batch < 1)
    return error("--batch must be >= 1, got " + Twine(options.batch));

  context->loadDialect<tfm::TfmDialect, func::FuncDialect>();
  Builder b(context);
  Type elementType = llvm::StringSwitch<Type>(options.dtype)
                         .Case("f32", b.getF32Type())
                         .Case("bf16", b.getBF16Type())
                         .Case("f16", b.getF16Type())
                         .Default(Type());
  if (!elementType)
    return error("--dtype must be f32, bf16 or f16, got '" + options.dtype +
                 "'");

  ConfigReader cfg(*object, options.source);
  std::optional<std::string> modelType = cfg.string("model_type");
  if (cfg.failed())
    return error(cfg.getError());
  if (!modelType)
    return error(options.source + ": field 'model_type' is missing");

  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(context));
  (*module)->setAttr(tfm::TfmDialect::ModelTypeAttrHelper::getNameStr(),
                     b.getStringAttr(*modelType));
  // The config as read (sp-import overrides none of its fields: --seq-len
  // only shortens the sequence), for --export-hf to write back.
  std::string configText;
  llvm::raw_string_ostream(configText)
      << llvm::json::Value(llvm::json::Object(*object));
  (*module)->setAttr(tfm::TfmDialect::HfConfigAttrHelper::getNameStr(),
                     b.getStringAttr(configText));
  ImportTarget target{*module, elementType, options};
  bool ok;
  if (*modelType == "gpt2")
    ok = importGPT2(cfg, target);
  else if (*modelType == "gpt_neox")
    ok = importGPTNeoX(cfg, target);
  else if (*modelType == "llama")
    ok = importLlama(cfg, target);
  else
    return error(options.source + ": field 'model_type' = \"" + *modelType +
                 "\" is not supported (supported: gpt2, gpt_neox, llama)");
  if (!ok || cfg.failed())
    return error(cfg.getError());

  // The importer builds only valid IR; a failure here is a bug, reported as
  // such rather than printed as a model.
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &d) {
      llvm::raw_string_ostream(diagnostics)
          << d.getLocation() << ": " << d << "\n";
      return success();
    });
    if (failed(verify(*module)))
      return error("internal error: the imported model does not verify:\n" +
                   diagnostics);
  }
  return module;
}

//===- HFImportTest.cpp - published parameter counts ----------------------===//
//
// The imported models must have exactly the parameter counts their authors
// publish: a check of every shape at once.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Import/HFImport.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace mlir;

static int64_t countParameters(const std::string &config) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(SEQPAR_EXAMPLES_DIR) +
                                            "/configs/" + config);
  EXPECT_TRUE(bool(buffer)) << config;
  if (!buffer)
    return -1;
  MLIRContext ctx;
  seqpar::HFImportOptions options;
  options.seqLen = 8;
  auto module = seqpar::importHFConfig((*buffer)->getBuffer(), options, &ctx);
  if (!module) {
    ADD_FAILURE() << llvm::toString(module.takeError());
    return -1;
  }
  int64_t total = 0;
  (**module).walk([&](seqpar::tfm::ParamOp p) {
    total += cast<RankedTensorType>(p.getType()).getNumElements();
  });
  return total;
}

TEST(HFImport, GPT2SmallHas124MParameters) {
  // transformers: GPT2LMHeadModel("gpt2").num_parameters() (tied head).
  EXPECT_EQ(countParameters("gpt2-124m.json"), 124439808);
}

TEST(HFImport, Pythia1_4BParameterCount) {
  // EleutherAI/pythia-1.4b: 1,414,647,808 parameters.
  EXPECT_EQ(countParameters("pythia-1.4b.json"), 1414647808);
}

TEST(HFImport, Llama3_8BParameterCount) {
  // meta-llama/Meta-Llama-3-8B: 8,030,261,248 parameters.
  EXPECT_EQ(countParameters("llama-3-8b.json"), 8030261248);
}

TEST(HFImport, Llama3_2_1BParameterCount) {
  // meta-llama/Llama-3.2-1B (tied embeddings): 1,235,814,400 parameters.
  EXPECT_EQ(countParameters("llama-3.2-1b.json"), 1235814400);
}

TEST(HFImport, GPT3ShapeMatchesThePaper) {
  // 12 h^2 per layer plus embeddings: 174.6B for arXiv 2205.05198's 175B.
  int64_t h = 12288, layers = 96, v = 51200, s = 2048;
  int64_t perLayer = 12 * h * h + 13 * h; // weights, biases, 2 LayerNorms
  EXPECT_EQ(countParameters("paper-175b.json"),
            layers * perLayer + v * h + s * h + 2 * h);
}

TEST(HFImport, ErrorsNameTheField) {
  MLIRContext ctx;
  seqpar::HFImportOptions options;
  auto module = seqpar::importHFConfig(
      R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8,
          "n_embd": 10, "n_layer": 1, "n_head": 3})",
      options, &ctx);
  ASSERT_FALSE(bool(module));
  EXPECT_EQ(
      llvm::toString(module.takeError()),
      "config.json: field 'n_embd' = 10 is not divisible by 'n_head' = 3");
}

static std::string importError(const std::string &json,
                               seqpar::HFImportOptions options = {}) {
  MLIRContext ctx;
  auto module = seqpar::importHFConfig(json, options, &ctx);
  if (module)
    return "(imported)";
  return llvm::toString(module.takeError());
}

static const char *kTiny =
    R"({"model_type": "gpt2", "vocab_size": 16, "n_positions": 8,
        "n_embd": 8, "n_layer": 1, "n_head": 2})";

TEST(HFImport, NestingIsBoundedBeforeParsing) {
  // The library checks depth itself: a fuzz driver or another tool calling
  // importHFConfig gets the same bound as sp-import.
  std::string deep(100000, '[');
  EXPECT_EQ(importError(deep),
            "config.json: JSON nested more than 64 levels deep at byte "
            "offset 64");
  std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_EQ(importError(ok),
            "config.json: expected a JSON object at the top level");
  // Brackets in strings and escaped quotes do not count.
  std::string inString =
      R"({"model_type": "x\")" + std::string(100, '{') + R"("})";
  EXPECT_EQ(importError(inString).substr(0, 40),
            "config.json: field 'model_type' = \"x\"{{{");
}

TEST(HFImport, SizeIsBounded) {
  std::string big(seqpar::kMaxConfigBytes + 1, ' ');
  EXPECT_EQ(importError(big), "config.json: more than 16 MiB, the size limit "
                              "of a config (16777217 bytes)");
}

TEST(HFImport, OverflowingBatchNamesTheFlag) {
  seqpar::HFImportOptions options;
  options.batch = int64_t(1) << 62;
  EXPECT_EQ(importError(kTiny, options),
            "--batch = 4611686018427387904 is too large: the input "
            "'input_ids' [n_positions, --batch] = [8, 4611686018427387904] "
            "has 2^63 or more elements");
  // 2^59 tokens fit (2^62 bytes); 2^62 f32 activations [8, 2^56, 8] do not.
  options.batch = int64_t(1) << 56;
  EXPECT_EQ(importError(kTiny, options),
            "--batch = 72057594037927936 is too large: the activation of "
            "'transformer.wte' [n_positions, --batch, n_embd] = [8, "
            "72057594037927936, 8] has 4611686018427387904 elements of 4 "
            "bytes, which is 2^63 bytes or more");
}

TEST(HFImport, LayerCountIsBounded) {
  std::string json = kTiny;
  json.replace(json.find("\"n_layer\": 1"), 12, "\"n_layer\": 65537");
  EXPECT_EQ(importError(json), "config.json: field 'n_layer' = 65537 is more "
                               "than 65536, the most layers sp-import builds");
}

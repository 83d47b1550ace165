//===- ParamsDTypeTest.cpp - parameters stored in BF16 / F16 --------------===//
//
// Compiled programs have BF16 or F16 parameters only with sharded master
// weights (ZeRO-1), so the runtime's side of them is checked here on a model
// description written by hand: a BF16, an F16 and an F32 parameter. The
// shards hold the parameters' types (2 bytes per element for the 16-bit
// ones); --init-from of an F32 file rounds into them to nearest even (the
// expected bits computed from the values, ties included); the default dump
// writes each parameter in its own type with exactly the stored bits, an F32
// dump their exact widening; initialisation stores the f32 draws rounded.
// With master weights (sharded master weights under ZeRO-1): the masters hold
// the F32 values of a load or of the draws, the parameters their rounding,
// an F32 dump the masters. Runs on one rank (mpirun -np 1) on the CPU backend.
//
//===----------------------------------------------------------------------===//

#include "../driver/Model.h"
#include "../driver/Params.h"
#include "../driver/SafeTensors.h"
#include "Comm.h"

#include "sprt/device.h"
#include "sprt/dtype.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <map>
#include <unistd.h>
#include <vector>

using namespace sprt;

namespace {
const char kModel[] = R"({
  "format_version": 3, "eval_step": false,
  "model_type": "test", "mesh": {"axes": ["tp"], "sizes": [1]},
  "seq": 1, "batch": 1, "vocab": 1, "arena_bytes": 0, "batch_axis": -1,
  "planned": {"parameters": 0, "optimizer_state": 0, "tokens": 0,
              "arena": 0, "peak_bytes": 0},
  "params": [
    {"name": "b", "shape": [2, 3], "local_shape": [2, 3], "init": "normal",
     "std": 1.0, "splits": [], "dtype": "BF16"},
    {"name": "h", "shape": [6], "local_shape": [6], "init": "normal",
     "std": 1.0, "splits": [], "dtype": "F16"},
    {"name": "f", "shape": [6], "local_shape": [6], "init": "normal",
     "std": 1.0, "splits": []}]})";

/// Values with their nearest-even bf16 and f16 bits, worked out by hand:
/// 1 + 2^-8 is a bf16 tie (to the even 1.0: 0x3f80), 1 + 3 * 2^-8 one to
/// 1 + 2^-6 (0x3f82); 1 + 2^-11 an f16 tie (to 1.0: 0x3c00), 1 + 3 * 2^-11
/// one to 1 + 2^-9 (0x3c02); 2^-24 is f16's smallest subnormal (0x0001).
const float kValues[6] = {1.0f + 0x1p-8f,  1.0f + 3 * 0x1p-8f,
                          1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f,
                          0x1p-24f,        -2.5f};
const uint16_t kBf16[6] = {0x3f80, 0x3f82, 0x3f80, 0x3f80, 0x3380, 0xc020};
const uint16_t kF16[6] = {0x3c04, 0x3c0c, 0x3c00, 0x3c02, 0x0001, 0xc100};

std::string tempPath(const char *name) {
  char dir[] = "/tmp/sprt-params-XXXXXX";
  return std::string(mkdtemp(dir)) + "/" + name;
}

std::vector<uint16_t> shard16(float *p, int64_t n) {
  std::vector<uint16_t> h(size_t(n), 0);
  sprt_memcpy_to_host(h.data(), p, n * 2, sprt_current_stream());
  sprt_stream_synchronize(sprt_current_stream());
  return h;
}

/// A file's tensors: name -> (dtype, bytes).
std::map<std::string, std::pair<std::string, std::vector<char>>>
readAll(const std::string &path) {
  std::map<std::string, TensorInfo> infos;
  std::string error;
  std::map<std::string, std::pair<std::string, std::vector<char>>> out;
  EXPECT_TRUE(readCheckpointIndex(path, infos, error)) << error;
  for (auto &[name, info] : infos) {
    std::vector<char> bytes;
    EXPECT_TRUE(readTensorData(info, bytes, error)) << error;
    out[name] = {info.dtype, bytes};
  }
  return out;
}
} // namespace

TEST(ParamsDType, LoadRoundsIntoStoredTypesAndDumpsThem) {
  Model model;
  std::string error;
  ASSERT_TRUE(model.parse(kModel, error)) << error;
  EXPECT_EQ(model.params[0].dtype, DType::BF16);
  EXPECT_EQ(model.params[2].dtype, DType::F32); // no "dtype": F32
  EXPECT_EQ(model.precision(), "mixed");
  Params params(model);

  std::string file = tempPath("in.safetensors");
  ASSERT_TRUE(writeSafeTensors(file,
                               {{"b", "F32", {2, 3}, kValues, sizeof kValues},
                                {"h", "F32", {6}, kValues, sizeof kValues},
                                {"f", "F32", {6}, kValues, sizeof kValues}},
                               error))
      << error;
  ASSERT_TRUE(params.load(file, error)) << error;
  std::vector<uint16_t> b = shard16(params.pointers()[0], 6),
                        h = shard16(params.pointers()[1], 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(b[i], kBf16[i]) << i;
    EXPECT_EQ(h[i], kF16[i]) << i;
  }

  // The default dump: each in its own type, the stored bits.
  std::string dumped = tempPath("out.safetensors");
  ASSERT_TRUE(params.dump(dumped, error)) << error;
  auto tensors = readAll(dumped);
  EXPECT_EQ(tensors["b"].first, "BF16");
  EXPECT_EQ(tensors["h"].first, "F16");
  EXPECT_EQ(tensors["f"].first, "F32");
  ASSERT_EQ(tensors["b"].second.size(), 12u);
  EXPECT_EQ(std::memcmp(tensors["b"].second.data(), kBf16, 12), 0);
  EXPECT_EQ(std::memcmp(tensors["h"].second.data(), kF16, 12), 0);
  EXPECT_EQ(std::memcmp(tensors["f"].second.data(), kValues, 24), 0);

  // In F32 (as checkpoints write them): the exact widening.
  std::string wide = tempPath("wide.safetensors");
  ASSERT_TRUE(
      params.dump(wide, error, {}, false, std::vector<DType>(3, DType::F32)))
      << error;
  tensors = readAll(wide);
  ASSERT_EQ(tensors["b"].first, "F32");
  const float *wb = reinterpret_cast<const float *>(tensors["b"].second.data());
  const float *wh = reinterpret_cast<const float *>(tensors["h"].second.data());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(wb[i], dtype::bf16ToF32(kBf16[i])) << i;
    EXPECT_EQ(wh[i], dtype::f16ToF32(kF16[i])) << i;
  }
  // Loading that F32 dump back gives the same bits (F32 -> BF16 of a bf16
  // value is exact).
  ASSERT_TRUE(params.load(wide, error)) << error;
  EXPECT_EQ(shard16(params.pointers()[0], 6),
            std::vector<uint16_t>(kBf16, kBf16 + 6));

  // Initialisation: the f32 draws rounded into the stored type.
  params.initialize(7);
  b = shard16(params.pointers()[0], 6);
  h = shard16(params.pointers()[1], 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(b[i], dtype::f32ToBf16(sprt_normal(7, sprt_hash_name("b"), i)));
    EXPECT_EQ(h[i], dtype::f32ToF16(sprt_normal(7, sprt_hash_name("h"), i)));
  }
}

TEST(ParamsDType, UnknownElementTypeIsAnError) {
  std::string json = kModel, error;
  json.replace(json.find("\"F16\""), 5, "\"I8\"");
  Model model;
  EXPECT_FALSE(model.parse(json.c_str(), error));
  EXPECT_EQ(error, "the program's model description gives parameter 'h' the "
                   "element type 'I8' (the runtime stores F32, BF16 or F16)");
}

// The description's format version (sprt/model_json.def) is checked before
// anything else: a program of another sp-compile is refused, naming both.
TEST(ParamsDType, FormatVersionIsChecked) {
  for (const char *other :
       {"\"format_version\": 1, ", "\"format_version\": 2, ",
        "\"format_version\": 4, ", ""}) {
    std::string json = kModel, error;
    json.replace(json.find("\"format_version\": 3, "), 21, other);
    Model model;
    EXPECT_FALSE(model.parse(json.c_str(), error)) << other;
    std::string found = *other ? std::string(1, other[18]) : "1";
    EXPECT_EQ(error, "the program's model description is format " + found +
                         ", this runtime reads format 3 "
                         "(sprt/model_json.def): compile the program with "
                         "the sp-compile of this runtime");
  }
  // An evaluation step must fit the step's arena it runs in.
  std::string json = kModel, error;
  json.replace(json.find("\"eval_step\": false"), 18,
               "\"eval_step\": true, \"eval_arena_bytes\": 64");
  Model model;
  EXPECT_FALSE(model.parse(json.c_str(), error));
  EXPECT_EQ(error, "the program's evaluation step needs an arena of 64 bytes, "
                   "larger than the step's (0)");
}

TEST(ParamsDType, PrecisionFieldIsTheModelsPrecision) {
  // F32 master weights of a bf16 model: the description's "precision" is
  // the model's (checkpoint identity, default dump type), not the
  // parameters' storage type.
  std::string json = kModel, error;
  json.replace(json.find("\"params\""), 0, "\"precision\": \"bf16\", ");
  for (const char *type : {"\"BF16\"", "\"F16\""})
    json.replace(json.find(type), std::strlen(type), "\"F32\"");
  Model model;
  ASSERT_TRUE(model.parse(json.c_str(), error)) << error;
  EXPECT_EQ(model.params[0].dtype, DType::F32);
  EXPECT_EQ(model.precision(), "BF16");
  EXPECT_EQ(dumpDTypes(model, {0, 2}, ""),
            std::vector<DType>({DType::BF16, DType::BF16}));
  EXPECT_EQ(dumpDTypes(model, {0, 2}, "f32"),
            std::vector<DType>({DType::F32, DType::F32}));
  // Without the field: the parameters' own types, as before.
  Model old;
  ASSERT_TRUE(old.parse(kModel, error)) << error;
  EXPECT_EQ(dumpDTypes(old, {0, 1, 2}, ""),
            std::vector<DType>({DType::BF16, DType::F16, DType::F32}));
  for (const char *bad : {"\"fp8\"", "\"F32\"", "16"}) {
    std::string text = kModel;
    text.replace(text.find("\"params\""), 0,
                 std::string("\"precision\": ") + bad + ", ");
    Model m;
    EXPECT_FALSE(m.parse(text.c_str(), error)) << bad;
    EXPECT_EQ(error, std::string("the program's model description gives the "
                                 "precision ") +
                         bad +
                         " (the runtime knows \"f32\", \"bf16\", \"f16\")");
  }
}

// Gradient accumulation: "micro_batches" (1 when absent) is a count of at
// least 1; "batch" stays one micro-batch's.
TEST(ParamsDType, MicroBatchesField) {
  std::string error;
  Model old;
  ASSERT_TRUE(old.parse(kModel, error)) << error;
  EXPECT_EQ(old.microBatches, 1);
  std::string json = kModel;
  json.replace(json.find("\"params\""), 0, "\"micro_batches\": 4, ");
  Model model;
  ASSERT_TRUE(model.parse(json.c_str(), error)) << error;
  EXPECT_EQ(model.microBatches, 4);
  EXPECT_EQ(model.batch, 1);
  for (const char *bad : {"0", "-2", "2.5", "\"4\"", "true", "null"}) {
    std::string text = kModel;
    text.replace(text.find("\"params\""), 0,
                 std::string("\"micro_batches\": ") + bad + ", ");
    Model m;
    EXPECT_FALSE(m.parse(text.c_str(), error)) << bad;
    EXPECT_EQ(error, std::string("the program's model description gives "
                                 "micro_batches ") +
                         bad + " (an integer of at least 1)");
  }
}

TEST(ParamsDType, MasterWeightsHoldTheF32ValuesAndTheParameterTheirRounding) {
  // "b" (BF16) and "h" (F16) with master weights, as sp-optimizer marks a
  // bf16 / f16 parameter under ZeRO-1 (one rank here: the master is the
  // whole shard).
  std::string json = kModel, error;
  json.replace(json.find("\"params\""), 0,
               "\"precision\": \"bf16\", \"optimizer\": \"adamw\", ");
  json.replace(json.find("\"dtype\": \"BF16\""), 15,
               "\"dtype\": \"BF16\", \"master\": true");
  json.replace(json.find("\"dtype\": \"F16\""), 14,
               "\"dtype\": \"F16\", \"master\": true");
  Model model;
  ASSERT_TRUE(model.parse(json.c_str(), error)) << error;
  EXPECT_TRUE(model.params[0].master && model.params[1].master);
  EXPECT_FALSE(model.params[2].master);
  EXPECT_TRUE(model.hasMasters());
  EXPECT_EQ(model.masterStateIndex(1), 2 * 3 + 1); // after the moments
  Params params(model);
  ASSERT_TRUE(params.masters()[0] && params.masters()[1]);
  EXPECT_EQ(params.masters()[2], nullptr);

  auto master = [&](int i) {
    std::vector<float> m(6);
    sprt_memcpy_to_host(m.data(), params.masters()[size_t(i)], 24,
                        sprt_current_stream());
    sprt_stream_synchronize(sprt_current_stream());
    return m;
  };
  // --init-from: the masters get the file's F32 values, the parameters
  // their rounding (the hand-worked bits).
  std::string file = tempPath("in.safetensors");
  ASSERT_TRUE(writeSafeTensors(file,
                               {{"b", "F32", {2, 3}, kValues, sizeof kValues},
                                {"h", "F32", {6}, kValues, sizeof kValues},
                                {"f", "F32", {6}, kValues, sizeof kValues}},
                               error))
      << error;
  ASSERT_TRUE(params.load(file, error)) << error;
  std::vector<uint16_t> b = shard16(params.pointers()[0], 6),
                        h = shard16(params.pointers()[1], 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(master(0)[size_t(i)], kValues[i]) << i;
    EXPECT_EQ(master(1)[size_t(i)], kValues[i]) << i;
    EXPECT_EQ(b[size_t(i)], kBf16[i]) << i;
    EXPECT_EQ(h[size_t(i)], kF16[i]) << i;
  }
  // An F32 dump (a checkpoint's) writes the masters, not the rounding; the
  // default (BF16, the precision) the rounding.
  std::string dumped = tempPath("f32.safetensors");
  ASSERT_TRUE(
      params.dump(dumped, error, {}, true, std::vector<DType>(3, DType::F32)))
      << error;
  auto tensors = readAll(dumped);
  for (const char *name : {"b", "h", "f"}) {
    ASSERT_EQ(tensors[name].second.size(), sizeof kValues) << name;
    EXPECT_EQ(std::memcmp(tensors[name].second.data(), kValues, sizeof kValues),
              0)
        << name;
  }
  dumped = tempPath("bf16.safetensors");
  ASSERT_TRUE(params.dump(dumped, error, {}, false,
                          dumpDTypes(model, allParams(model), "")))
      << error;
  tensors = readAll(dumped);
  EXPECT_EQ(tensors["b"].first, "BF16");
  EXPECT_EQ(std::memcmp(tensors["b"].second.data(), kBf16, 12), 0);

  // Initialisation: the masters are the f32 draws (std * normal(seed,
  // hash(name), index)), the parameters their rounding.
  params.initialize(7);
  b = shard16(params.pointers()[0], 6);
  h = shard16(params.pointers()[1], 6);
  int unrounded = 0;
  for (int i = 0; i < 6; ++i) {
    float drawB = sprt_normal(7, sprt_hash_name("b"), uint64_t(i));
    float drawH = sprt_normal(7, sprt_hash_name("h"), uint64_t(i));
    EXPECT_EQ(master(0)[size_t(i)], drawB) << i;
    EXPECT_EQ(master(1)[size_t(i)], drawH) << i;
    EXPECT_EQ(b[size_t(i)], sprt::dtype::f32ToBf16(drawB)) << i;
    EXPECT_EQ(h[size_t(i)], sprt::dtype::f32ToF16(drawH)) << i;
    unrounded += sprt::dtype::bf16ToF32(b[size_t(i)]) != drawB;
  }
  EXPECT_GT(unrounded, 0); // the masters are not the rounded values

  // A master weight of an F32 parameter is an error.
  std::string bad = kModel;
  bad.replace(bad.find("\"splits\": []}]"), 14,
              "\"splits\": [], \"master\": true}]");
  Model m;
  EXPECT_FALSE(m.parse(bad.c_str(), error));
  EXPECT_EQ(error, "the program's model description keeps an F32 master "
                   "weight of parameter 'f', which is F32 itself (a master "
                   "weight is kept for BF16 or F16 parameters)");
}

int main(int argc, char **argv) {
  World::init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (const char *why = sprt_device_init(0)) {
    std::fprintf(stderr, "%s\n", why);
    return 1;
  }
  int64_t one = 1;
  if (sprt_mesh_init(1, &one) != 0)
    return 1;
  int rc = RUN_ALL_TESTS();
  sprt_mesh_finalize();
  World::finalize();
  return rc;
}

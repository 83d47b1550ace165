//===- CudnnAttentionConformanceTest.cpp - attention on cuDNN -------------===//
//
// The CUDA backend's cuDNN path behind the sprt_attention* calls
// (sprt_attention_select "cudnn", bf16 staging) against the same calls on
// the native kernels, which the rest of this suite checks against double
// references: causal and not, GQA and MQA, rotary, query pieces (a causal
// band off the diagonal), packed documents (a bias mask from the position
// ids), ring blocks merged by log-sum-exp (out and lse) and their
// backward, a head_dim cuDNN refuses (the native kernel runs, bit for
// bit), and shapes readied before their calls (sprt_attention_prepare).
// Dropout: cuDNN draws its own masks, so it is checked by its statistics: the
// keep rate, the 1 / (1 - p) scaling, and the forward's mask equal to the
// backward's.
//
// Tolerances (bf16 against f32): bf16's unit roundoff is u = 2^-8 ~ 4e-3.
// The forward rounds q, k (after rotary), v, the probabilities before P V
// and the output: five independent roundings, each of RMS u / sqrt(3)
// relative, about sqrt(5/3) u ~ 5e-3 in all, so ||out - ref|| / ||ref||
// <= 1e-2 and max |out - ref| <= 3e-2 max |ref|. The backward also rounds dO,
// dS and dq, dk, dv, sums of S rounded products (RMS error ~ sqrt(S) u / S of
// their size): 2e-2 and 6e-2. A wrong mask, scale, rotation or head
// mapping gives errors of order 1. Every cuDNN run must also differ from
// the native result (else the call fell back).
//
// Where the backend has no cuDNN path (the cpu backend, a build without
// cuDNN, no libcudnn.so.9 at run time) the tests are skipped with the
// reason; without a GPU, DeviceTest skips them.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"

#include <cstring>

using namespace sprt_conformance;
using sprt_test::randomFloats;

namespace {

class CudnnAttention : public DeviceTest {
protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped())
      return;
    const std::string line = sprt_attention_select(kBf16, "cudnn");
    if (line.rfind("cudnn", 0) != 0)
      GTEST_SKIP() << "no cuDNN attention: " << line;
  }
  void TearDown() override { sprt_attention_select(kF32, "native"); }

public:
  static void use(bool cudnn) {
    sprt_attention_select(kBf16, cudnn ? "cudnn" : "native");
  }
};

struct Config {
  int64_t S = 128, B = 2, heads = 4, kvHeads = 2, D = 64, rotary = 32;
  int64_t Sq = 0, qOffset = 0; // a query piece (Sq 0: all S rows)
  bool causal = true, documents = false;
  double rate = 0.0;
  int64_t rows() const { return Sq ? Sq : S; }
};

// The packed documents' lengths (documentPositions, Conformance.h).
const int64_t kDocumentLengths[4] = {37, 50, 13, 90};

struct Inputs {
  DeviceBuffer<float> q, k, v, dout;
  DeviceBuffer<int64_t> pos;
  explicit Inputs(const Config &c)
      : q(randomFloats(size_t(c.rows() * c.B * c.heads * c.D), 1)),
        k(randomFloats(size_t(c.S * c.B * c.kvHeads * c.D), 2)),
        v(randomFloats(size_t(c.S * c.B * c.kvHeads * c.D), 3)),
        dout(randomFloats(size_t(c.rows() * c.B * c.heads * c.D), 4)),
        pos(documentPositions(c.S, c.B, kDocumentLengths)) {}
};

struct Results {
  std::vector<float> out, dq, dk, dv;
};

Results run(const Config &c, Inputs &in) {
  const size_t nq = size_t(c.rows() * c.B * c.heads * c.D),
               nkv = size_t(c.S * c.B * c.kvHeads * c.D);
  DeviceBuffer<float> out(nans(nq)), dq(nans(nq)), dk(nans(nkv)), dv(nans(nkv));
  const int64_t *pos = c.documents ? in.pos.get() : nullptr;
  sprt_attention_f32(in.q, in.k, in.v, pos, out, c.rows(), c.S, c.qOffset, c.B,
                     c.heads, c.kvHeads, c.D, c.causal, c.documents, c.rotary,
                     10000.0, c.rate, 7, 3, c.B, 0, c.heads, 0);
  sprt_attention_grad_f32(in.dout, in.q, in.k, in.v, pos, dq, dk, dv, c.rows(),
                          c.S, c.qOffset, c.B, c.heads, c.kvHeads, c.D,
                          c.causal, c.documents, c.rotary, 10000.0, c.rate, 7,
                          3, c.B, 0, c.heads, 0, 0);
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

/// ||got - ref|| / ||ref|| <= relL2 and max |got - ref| <= relMax max |ref|,
/// and got != ref somewhere (cuDNN's bf16 result is not the f32 kernel's).
void expectNear(const std::string &what, const std::vector<float> &got,
                const std::vector<float> &ref, double relL2, double relMax) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double err2 = 0, ref2 = 0, maxErr = 0, maxRef = 0;
  bool differs = false;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = double(got[i]) - double(ref[i]);
    ASSERT_TRUE(std::isfinite(got[i])) << what << ": element " << i;
    err2 += e * e;
    ref2 += double(ref[i]) * ref[i];
    maxErr = std::max(maxErr, std::fabs(e));
    maxRef = std::max(maxRef, std::fabs(double(ref[i])));
    differs |= got[i] != ref[i];
  }
  const double l2 = std::sqrt(err2 / std::max(ref2, 1e-300));
  EXPECT_LE(l2, relL2) << what << ": relative L2 error";
  EXPECT_LE(maxErr, relMax * maxRef) << what << ": largest error";
  EXPECT_TRUE(differs) << what << ": equal to the native kernel's bit for bit"
                       << " (did the call fall back?)";
}

void compare(const std::string &what, const Config &c) {
  Inputs in(c);
  CudnnAttention::use(false);
  const Results native = run(c, in);
  CudnnAttention::use(true);
  const Results cudnn = run(c, in);
  expectNear(what + " out", cudnn.out, native.out, 1e-2, 3e-2);
  expectNear(what + " dq", cudnn.dq, native.dq, 2e-2, 6e-2);
  expectNear(what + " dk", cudnn.dk, native.dk, 2e-2, 6e-2);
  expectNear(what + " dv", cudnn.dv, native.dv, 2e-2, 6e-2);
}

} // namespace

TEST_F(CudnnAttention, SelectionNamesTheKernel) {
  EXPECT_EQ(
      std::string(sprt_attention_select(kF32, nullptr)).rfind("native", 0), 0u)
      << "f32 programs keep the native kernel";
  EXPECT_EQ(std::string(sprt_attention_select(kBf16, "native")),
            "native (requested)");
  EXPECT_EQ(
      std::string(sprt_attention_select(kBf16, nullptr)).rfind("cudnn", 0), 0u)
      << "bf16 programs default to cuDNN";
}

TEST_F(CudnnAttention, CausalGqaRotary) { compare("causal gqa", Config{}); }

TEST_F(CudnnAttention, MqaNonCausal) {
  Config c;
  c.kvHeads = 1;
  c.causal = false;
  c.D = 32;
  c.rotary = 0;
  compare("mqa non-causal", c);
}

TEST_F(CudnnAttention, CausalQueryPieceOffTheDiagonal) {
  Config c;
  c.S = 192;
  c.Sq = 64;
  c.qOffset = 96; // query rows 96..159 over all 192 keys: a band +96
  compare("causal piece", c);
}

TEST_F(CudnnAttention, PackedDocuments) {
  Config c;
  c.documents = true;
  c.S = 160;
  compare("packed documents", c);
}

TEST_F(CudnnAttention, HeadDimCuDnnRefusesRunsNative) {
  Config c;
  c.D = 12; // not a multiple of 8
  c.rotary = 0;
  Inputs in(c);
  use(false);
  const Results native = run(c, in);
  use(true);
  const Results fallback = run(c, in);
  EXPECT_EQ(0, std::memcmp(native.out.data(), fallback.out.data(),
                           native.out.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(native.dk.data(), fallback.dk.data(),
                           native.dk.size() * sizeof(float)));
}

// sprt_attention_prepare (the driver's, before step 1): a shape cuDNN
// refuses is named then, once, and its calls say nothing more and run the
// native kernel bit for bit; a shape it takes runs on cuDNN after it, as
// without it. (The S of each shape is this test's own: a reason is said
// once per process.)
TEST_F(CudnnAttention, PrepareNamesARefusalBeforeTheCalls) {
  Config c;
  c.S = 72;
  c.D = 12; // not a multiple of 8
  c.rotary = 0;
  testing::internal::CaptureStderr();
  sprt_attention_prepare(c.rows(), c.S, c.qOffset, 0, c.B, c.heads, c.kvHeads,
                         c.D, c.causal, c.documents, c.rate, 1);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("attention on the native kernel"), std::string::npos)
      << said;
  Inputs in(c);
  testing::internal::CaptureStderr();
  const Results fallback = run(c, in);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  use(false);
  const Results native = run(c, in);
  EXPECT_EQ(0, std::memcmp(native.out.data(), fallback.out.data(),
                           native.out.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(native.dq.data(), fallback.dq.data(),
                           native.dq.size() * sizeof(float)));
}

TEST_F(CudnnAttention, PreparedShapeRunsOnCudnn) {
  Config c;
  c.S = 80;
  c.documents = true;
  sprt_attention_prepare(c.rows(), c.S, c.qOffset, 0, c.B, c.heads, c.kvHeads,
                         c.D, c.causal, c.documents, c.rate, 1);
  Inputs in(c);
  const Results got = run(c, in);
  use(false);
  const Results ref = run(c, in);
  expectNear("out", got.out, ref.out, 1e-2, 3e-2);
  expectNear("dq", got.dq, ref.dq, 2e-2, 6e-2);
  expectNear("dk", got.dk, ref.dk, 2e-2, 6e-2);
  expectNear("dv", got.dv, ref.dv, 2e-2, 6e-2);
}

namespace {

/// Two ring steps of query rows [qOffset, qOffset + Sq) over key blocks
/// [0, S/2) and [S/2, S), merged; then each block's backward with the
/// merged out and lse.
Results ringBlocks(const Config &c, Inputs &in, std::vector<float> &lseOut) {
  const int64_t half = c.S / 2, Sq = c.rows();
  const size_t nq = size_t(Sq * c.B * c.heads * c.D),
               nkv = size_t(half * c.B * c.kvHeads * c.D);
  DeviceBuffer<float> out(nans(nq)), lse(nans(size_t(Sq * c.B * c.heads)));
  DeviceBuffer<float> dq(std::vector<float>(nq, 0.0f));
  DeviceBuffer<float> dk(std::vector<float>(2 * nkv, 0.0f)),
      dv(std::vector<float>(2 * nkv, 0.0f));
  const int64_t *pos = c.documents ? in.pos.get() : nullptr;
  const int64_t *qPos = pos ? pos + c.qOffset * c.B : nullptr;
  for (int64_t blk = 0; blk < 2; ++blk) {
    const size_t at = size_t(blk) * nkv;
    sprt_attention_block_f32(in.q, in.k.get() + at, in.v.get() + at, qPos,
                             pos ? pos + blk * half * c.B : nullptr, out, lse,
                             Sq, half, c.qOffset, blk * half, c.S, c.B, c.heads,
                             c.kvHeads, c.D, c.causal, c.documents, c.rotary,
                             10000.0, 0.0, 7, 3, 0, c.heads, 0, blk);
  }
  for (int64_t blk = 0; blk < 2; ++blk) {
    const size_t at = size_t(blk) * nkv;
    sprt_attention_block_grad_f32(
        in.dout, in.q, in.k.get() + at, in.v.get() + at, qPos,
        pos ? pos + blk * half * c.B : nullptr, out, lse, dq, dk.get() + at,
        dv.get() + at, Sq, half, c.qOffset, blk * half, c.S, c.B, c.heads,
        c.kvHeads, c.D, c.causal, c.documents, c.rotary, 10000.0, 0.0, 7, 3, 0,
        c.heads, 0);
  }
  lseOut = lse.download();
  return {out.download(), dq.download(), dk.download(), dv.download()};
}

void compareRing(const std::string &what, const Config &c) {
  Inputs in(c);
  std::vector<float> lseNative, lseCudnn;
  CudnnAttention::use(false);
  const Results native = ringBlocks(c, in, lseNative);
  CudnnAttention::use(true);
  const Results cudnn = ringBlocks(c, in, lseCudnn);
  // lse is a log: its error is the relative error of the denominator, ~u.
  for (size_t i = 0; i < lseNative.size(); ++i)
    ASSERT_NEAR(lseCudnn[i], lseNative[i], 1e-2) << what << " lse " << i;
  expectNear(what + " out", cudnn.out, native.out, 1e-2, 3e-2);
  expectNear(what + " dq", cudnn.dq, native.dq, 2e-2, 6e-2);
  expectNear(what + " dk", cudnn.dk, native.dk, 2e-2, 6e-2);
  expectNear(what + " dv", cudnn.dv, native.dv, 2e-2, 6e-2);
}

} // namespace

TEST_F(CudnnAttention, RingBlocksCausalStatsBothDirections) {
  Config c;
  c.Sq = 64;
  c.qOffset = 64; // rows 64..127: block 0 fully visible, block 1 causal
  compareRing("ring causal", c);
}

TEST_F(CudnnAttention, RingBlocksBelowTheDiagonalAndDocuments) {
  Config c;
  c.S = 256;
  c.Sq = 96;
  c.qOffset = 32; // block 1 (keys 128..255) is partly above these rows
  c.documents = true;
  compareRing("ring documents", c);
}

// A ring's blocks readied before their calls (sprt_op_ring_attention_prepare
// gives sprt_attention_prepare each block's offsets) run on cuDNN as without.
TEST_F(CudnnAttention, PreparedRingBlocksRunOnCudnn) {
  Config c;
  c.S = 224;
  c.Sq = 48;
  c.qOffset = 120; // block 0 visible, block 1 (keys 112..223) a band
  c.documents = true;
  for (int64_t blk = 0; blk < 2; ++blk)
    sprt_attention_prepare(c.rows(), c.S / 2, c.qOffset, blk * c.S / 2, c.B,
                           c.heads, c.kvHeads, c.D, c.causal, c.documents, 0.0,
                           1);
  compareRing("prepared ring", c);
}

namespace {

/// Dropout seen through uniform probabilities: q = k = 0 and S = D = 16, v
/// the identity (v_j = e_j) makes out_i[d] = keep_id / (S (1 - p)); dO the
/// identity makes the backward's dv_j[d] = keep_dj / (S (1 - p)).
struct DropoutRun {
  std::vector<float> out, dv;
};

DropoutRun dropoutRun(double rate) {
  const int64_t S = 16, B = 2, H = 4, D = 16;
  const size_t n = size_t(S * B * H * D);
  std::vector<float> eye(n, 0.0f);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t bh = 0; bh < B * H; ++bh)
      eye[size_t((s * B * H + bh) * D + s)] = 1.0f;
  DeviceBuffer<float> zeros(std::vector<float>(n, 0.0f)), v(eye), dout(eye);
  DeviceBuffer<float> out(nans(n)), dq(nans(n)), dk(nans(n)), dv(nans(n));
  sprt_attention_f32(zeros, zeros, v, nullptr, out, S, S, 0, B, H, H, D, 0, 0,
                     0, 10000.0, rate, 11, 5, B, 0, H, 0);
  sprt_attention_grad_f32(dout, zeros, zeros, v, nullptr, dq, dk, dv, S, S, 0,
                          B, H, H, D, 0, 0, 0, 10000.0, rate, 11, 5, B, 0, H, 0,
                          0);
  return {out.download(), dv.download()};
}

} // namespace

TEST_F(CudnnAttention, DropoutKeepRateScalingAndSameMaskBothWays) {
  const double rate = 0.1;
  const int64_t S = 16, B = 2, H = 4, D = 16;
  // The native kernels' dropout would pass every check below too: the
  // calls must not have fallen back to them, and differ from their masks.
  testing::internal::CaptureStderr();
  const DropoutRun r = dropoutRun(rate);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said.find("attention on the native kernel"), std::string::npos)
      << said;
  use(false);
  const DropoutRun native = dropoutRun(rate);
  use(true);
  EXPECT_NE(0, std::memcmp(native.out.data(), r.out.data(),
                           r.out.size() * sizeof(float)))
      << "the native kernel's masks: did the calls fall back?";
  int64_t kept = 0, total = 0;
  for (int64_t i = 0; i < S; ++i)
    for (int64_t bh = 0; bh < B * H; ++bh)
      for (int64_t j = 0; j < S; ++j) {
        // out_i[j] * S (1 - p) is the keep bit (within bf16 rounding: the
        // kept value 1 / (S (1 - p)) = 0.0694 rounds to 2^-9 relative).
        const double fwd =
            r.out[size_t((i * B * H + bh) * D + j)] * S * (1.0 - rate);
        const double bwd =
            r.dv[size_t((j * B * H + bh) * D + i)] * S * (1.0 - rate);
        ASSERT_NEAR(fwd, std::round(fwd), 0.02) << "scaling 1 / (1 - p)";
        ASSERT_TRUE(std::round(fwd) == 0 || std::round(fwd) == 1) << fwd;
        ASSERT_EQ(std::round(fwd), std::round(bwd))
            << "forward and backward masks differ at row " << i << " key " << j;
        kept += int64_t(std::round(fwd));
        ++total;
      }
  // 2048 draws: the keep rate's standard error is sqrt(p (1 - p) / n) =
  // 0.0066; 4.5 of them.
  EXPECT_NEAR(double(kept) / double(total), 1.0 - rate, 0.03);
  EXPECT_LT(kept, total) << "nothing was dropped";
}

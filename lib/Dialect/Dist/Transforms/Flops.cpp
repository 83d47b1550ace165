//===- Flops.cpp - floating-point operations of an op ---------------------===//

#include "seqpar/Dialect/Dist/Transforms/Flops.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;

static int64_t lastDim(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape().back();
}

static int64_t elements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// 2 · (elements of a [M, X] operand) · Y: a GEMM's 2·M·N·K with X·Y = N·K.
static std::optional<int64_t> gemm(Value rows, int64_t other) {
  std::optional<int64_t> mk = llvm::checkedMul<int64_t>(elements(rows), other);
  return mk ? llvm::checkedMul<int64_t>(*mk, 2) : std::nullopt;
}

/// The attention forward's 4·b·heads·s_q·s_k·d (causal: half), times
/// `times2` / 2.
static std::optional<int64_t> attention(Value q, Value k, int64_t headDim,
                                        bool causal, int64_t times2) {
  auto qt = cast<RankedTensorType>(q.getType());
  // q is [s, b, heads * head_dim] with this rank's heads; k is [s_k, b, ...].
  int64_t sq = qt.getDimSize(0), b = qt.getDimSize(1);
  int64_t heads = qt.getDimSize(2) / headDim;
  int64_t sk = cast<RankedTensorType>(k.getType()).getDimSize(0);
  std::optional<int64_t> n = 1;
  for (int64_t f : {b, heads, sq, sk, headDim, causal ? int64_t(2) : 4, times2})
    if (n)
      n = llvm::checkedMul<int64_t>(*n, f);
  return n ? std::optional<int64_t>(*n / 2) : std::nullopt;
}

std::optional<int64_t> dist::opFlops(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      // [M, K] x [K, N] -> [M, N]: the result's elements times K.
      .Case([](tfm::LinearOp o) {
        return gemm(o.getResult(), lastDim(o.getInput()));
      })
      .Case([](AllGatherMatmulOp o) {
        return gemm(o.getResult(), lastDim(o.getInput()));
      })
      // dx [M, K] = dy [M, N] x W: dx's elements times N.
      .Case([](tfm::LinearGradInputOp o) {
        return gemm(o.getDx(), lastDim(o.getDy()));
      })
      // dW [N, K] = dy^T [N, M] x x [M, K]: x's elements times N.
      .Case([](tfm::LinearGradWeightOp o) {
        return gemm(o.getInput(), lastDim(o.getDy()));
      })
      // dW_j = dy_j^T x gathered x, for each dy_j [M, N_j] (the gathered
      // rows): dy_j's elements times K.
      .Case([](AllGatherMatmulGradWeightOp o) -> std::optional<int64_t> {
        std::optional<int64_t> sum = 0;
        for (Value dy : o.getDys()) {
          std::optional<int64_t> n = gemm(dy, lastDim(o.getInput()));
          sum = n && sum ? llvm::checkedAdd<int64_t>(*sum, *n) : std::nullopt;
        }
        return sum;
      })
      // The partial [M, N] before the scatter: the input's elements times N.
      .Case([](MatmulReduceScatterOp o) {
        return gemm(o.getInput(), lastDim(o.getResult()));
      })
      .Case([](tfm::AttentionOp o) {
        return attention(o.getQ(), o.getK(), o.getHeadDim(), o.getCausal(), 2);
      })
      .Case([](tfm::AttentionGradOp o) {
        return attention(o.getQ(), o.getK(), o.getHeadDim(), o.getCausal(), 5);
      })
      .Default([](Operation *) { return int64_t(0); });
}

//===- Flops.cpp - floating-point operations of an op ---------------------===//
//
// The cost models (CostOpInterface) of every tfm and dist op: the GEMMs and
// attention count their FLOPs (Flops.h), every other op is declared to count
// none. A new op is in neither list until someone says what it costs.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Analysis/Flops.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

#include "seqpar/Dialect/Dist/Analysis/CostOpInterface.cpp.inc"

static int64_t lastDim(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape().back();
}

static int64_t elements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// A [..., X] tensor's rows: its elements over X (0 when X is).
static int64_t rowsOf(Value v) {
  int64_t x = lastDim(v);
  return x ? elements(v) / x : 0;
}

/// The GEMM writing `out` (its rows by its last dimension), each element
/// a dot product of `inner` terms.
static GemmShape gemm(Value out, int64_t inner) {
  return {rowsOf(out), lastDim(out), inner};
}

/// The attention forward's 4·b·heads·s_q·s_k·d (causal: half), times
/// `times2` / 2, with k's rows `keyBlocks` times over (the ring's blocks).
static std::optional<int64_t> attention(Value q, Value k, int64_t headDim,
                                        bool causal, int64_t times2,
                                        int64_t keyBlocks = 1) {
  auto qt = cast<RankedTensorType>(q.getType());
  // q is [s, b, heads * head_dim] with this rank's heads; k is [s_k, b, ...].
  int64_t sq = qt.getDimSize(0), b = qt.getDimSize(1);
  int64_t heads = qt.getDimSize(2) / headDim;
  int64_t sk = cast<RankedTensorType>(k.getType()).getDimSize(0);
  std::optional<int64_t> n = 1;
  for (int64_t f :
       {b, heads, sq, sk, keyBlocks, headDim, causal ? int64_t(2) : 4, times2})
    if (n)
      n = llvm::checkedMul<int64_t>(*n, f);
  return n ? std::optional<int64_t>(*n / 2) : std::nullopt;
}

/// The ranks of a ring attention's axis, when its mesh is in scope.
static std::optional<int64_t> ringSize(Operation *op) {
  auto c = cast<CollectiveOpInterface>(op);
  auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, c.getMeshRef());
  return mesh ? mesh.getAxisSize(c.getMeshAxis()) : std::nullopt;
}

template <typename OpT>
static std::optional<int64_t> ringAttention(OpT o, int64_t times2) {
  std::optional<int64_t> n = ringSize(o);
  return n ? attention(o.getQ(), o.getK(), o.getHeadDim(), o.getCausal(),
                       times2, *n)
           : std::nullopt;
}

// [M, K] x [K, N] -> [M, N].
static SmallVector<GemmShape> gemmsOf(tfm::LinearOp o) {
  return {gemm(o.getResult(), lastDim(o.getInput()))};
}
// Its GEMM's: the GELU epilogue is memory-bound, counted with no FLOPs.
static SmallVector<GemmShape> gemmsOf(tfm::LinearGeluOp o) {
  return {gemm(o.getPre(), lastDim(o.getInput()))};
}
// Its input gradient's GEMM, dx [M, K] over N; the GELU's gradient and the
// bias gradient are memory-bound.
static SmallVector<GemmShape> gemmsOf(tfm::LinearGeluGradOp o) {
  return {gemm(o.getDx(), lastDim(o.getDy()))};
}
// On the gathered rows.
static SmallVector<GemmShape> gemmsOf(AllGatherMatmulOp o) {
  return {gemm(o.getResult(), lastDim(o.getInput()))};
}
// Its GEMM's, on the gathered rows (the GELU: no FLOPs, as tfm.linear_gelu).
static SmallVector<GemmShape> gemmsOf(AllGatherMatmulGeluOp o) {
  return {gemm(o.getPre(), lastDim(o.getInput()))};
}
// dx [M, K] = dy [M, N] x W.
static SmallVector<GemmShape> gemmsOf(tfm::LinearGradInputOp o) {
  return {gemm(o.getDx(), lastDim(o.getDy()))};
}
// dW [K, N] (as either layout stores it) = x^T [K, M] x dy [M, N].
static SmallVector<GemmShape> gemmsOf(tfm::LinearGradWeightOp o) {
  return {{lastDim(o.getInput()), lastDim(o.getDy()), rowsOf(o.getInput())}};
}
// Its weight gradient's GEMM; the bias gradient is memory-bound.
static SmallVector<GemmShape> gemmsOf(tfm::LinearGradWeightBiasOp o) {
  return {{lastDim(o.getInput()), lastDim(o.getDy()), rowsOf(o.getInput())}};
}
// dW_j = gathered x^T x dy_j, for each dy_j [M, N_j] (the gathered rows).
static SmallVector<GemmShape> gemmsOf(AllGatherMatmulGradWeightOp o) {
  SmallVector<GemmShape> out;
  for (Value dy : o.getDys())
    out.push_back({lastDim(o.getInput()), lastDim(dy), rowsOf(dy)});
  return out;
}
// The partial [M, N] before the scatter.
static SmallVector<GemmShape> gemmsOf(MatmulReduceScatterOp o) {
  return {
      {rowsOf(o.getInput()), lastDim(o.getResult()), lastDim(o.getInput())}};
}

/// 2·rows·cols·inner summed over `gemms`; nullopt on overflow.
static std::optional<int64_t> gemmFlops(ArrayRef<GemmShape> gemms) {
  std::optional<int64_t> sum = 0;
  for (const GemmShape &g : gemms) {
    std::optional<int64_t> n = 2;
    for (int64_t f : {g.rows, g.cols, g.inner})
      if (n)
        n = llvm::checkedMul<int64_t>(*n, f);
    sum = n && sum ? llvm::checkedAdd<int64_t>(*sum, *n) : std::nullopt;
  }
  return sum;
}

static std::optional<int64_t> flopsOf(tfm::AttentionOp o) {
  return attention(o.getQ(), o.getK(), o.getHeadDim(), o.getCausal(), 2);
}
static std::optional<int64_t> flopsOf(tfm::AttentionGradOp o) {
  return attention(o.getQ(), o.getK(), o.getHeadDim(), o.getCausal(), 5);
}
static std::optional<int64_t> flopsOf(RingAttentionOp o) {
  return ringAttention(o, 2);
}
static std::optional<int64_t> flopsOf(RingAttentionGradOp o) {
  return ringAttention(o, 5);
}

namespace {
/// The cost of a GEMM op: its GEMMs' (gemmsOf).
template <typename OpT>
struct GemmCost : CostOpInterface::ExternalModel<GemmCost<OpT>, OpT> {
  std::optional<int64_t> getFlops(Operation *op) const {
    return gemmFlops(gemmsOf(cast<OpT>(op)));
  }
  CostKind getCostKind(Operation *) const { return CostKind::gemm; }
};

/// The cost of an op with counted FLOPs (flopsOf) at rate `Kind`.
template <typename OpT, CostKind Kind>
struct CountedCost
    : CostOpInterface::ExternalModel<CountedCost<OpT, Kind>, OpT> {
  std::optional<int64_t> getFlops(Operation *op) const {
    return flopsOf(cast<OpT>(op));
  }
  CostKind getCostKind(Operation *) const { return Kind; }
};

/// An op declared to perform no counted FLOPs.
template <typename OpT>
struct NoFlops : CostOpInterface::ExternalModel<NoFlops<OpT>, OpT> {
  std::optional<int64_t> getFlops(Operation *) const { return 0; }
  CostKind getCostKind(Operation *) const { return CostKind::none; }
};
} // namespace

template <CostKind Kind, typename... Ops>
static void attachCounted(MLIRContext *ctx) {
  (Ops::template attachInterface<CountedCost<Ops, Kind>>(*ctx), ...);
}

template <typename... Ops> static void attachGemms(MLIRContext *ctx) {
  (Ops::template attachInterface<GemmCost<Ops>>(*ctx), ...);
}

template <typename... Ops> static void attachNoFlops(MLIRContext *ctx) {
  (Ops::template attachInterface<NoFlops<Ops>>(*ctx), ...);
}

void dist::registerCostModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tfm::TfmDialect *) {
    using namespace tfm;
    attachGemms<LinearOp, LinearGradInputOp, LinearGradWeightOp, LinearGeluOp,
                LinearGeluGradOp, LinearGradWeightBiasOp>(ctx);
    attachCounted<CostKind::attention, AttentionOp, AttentionGradOp>(ctx);
    attachNoFlops<
        // Forward.
        ParamOp, GetParamOp, PositionIdsOp, MicroBatchOp, EmbeddingOp,
        LayerNormOp, RmsNormOp, DropoutOp, QkvSplitOp, GeluOp, SiluOp, ReluOp,
        MulOp, AddOp, ConvertOp, BiasAddOp, RepeatHeadsOp, LogitsMaxOp,
        LogitsSumExpOp, LabelLogitOp, CrossEntropyFromStatsOp, CrossEntropyOp,
        LabelCountOp, HyperparameterOp,
        // Backward.
        BiasGradOp, LayerNormGradOp, RmsNormGradOp, GeluGradOp, SiluGradOp,
        ReluGradOp, ScaleOp, FillOp, EmbeddingGradOp, QkvConcatOp,
        RepeatHeadsGradOp, CrossEntropyGradOp, CrossEntropyFromStatsGradOp,
        LogitsSumExpGradOp, LabelLogitGradOp,
        // Fused.
        DropoutAddOp, SwigluOp, SwigluGradOp, AddLayerNormOp, AddRmsNormOp,
        // Optimizer.
        SumSquaresOp, ClipScaleOp, SgdUpdateOp, AdamWUpdateOp,
        // Structure: the loop's ops are counted in its body, once per
        // micro-batch, by whoever walks it.
        MicroBatchLoopOp, YieldOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    attachGemms<AllGatherMatmulOp, AllGatherMatmulGeluOp, MatmulReduceScatterOp,
                AllGatherMatmulGradWeightOp>(ctx);
    attachCounted<CostKind::attention, RingAttentionOp, RingAttentionGradOp>(
        ctx);
    attachNoFlops<MeshOp, AllGatherOp, ReduceScatterOp, AllReduceOp,
                  AllReduceCoalescedOp, ReduceScatterCoalescedOp,
                  AllGatherParamOp, AllToAllOp, LocalSliceOp, SendOp, RecvOp>(
        ctx);
  });
}

std::optional<int64_t> dist::opFlops(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost) {
    if (dialect != tfm::TfmDialect::getDialectNamespace() &&
        dialect != DistDialect::getDialectNamespace())
      return 0;
    op->emitOpError() << "has no cost model (CostOpInterface, "
                         "lib/Dialect/Dist/Analysis/Flops.cpp): its FLOPs "
                         "are unknown";
    return std::nullopt;
  }
  std::optional<int64_t> n = cost.getFlops();
  if (!n)
    op->emitOpError() << "its FLOPs cannot be counted (they overflow int64, "
                         "or its mesh is not in scope)";
  return n;
}

SmallVector<GemmShape> dist::gemmShapes(Operation *op) {
  return llvm::TypeSwitch<Operation *, SmallVector<GemmShape>>(op)
      .Case<tfm::LinearOp, tfm::LinearGeluOp, tfm::LinearGeluGradOp,
            tfm::LinearGradInputOp, tfm::LinearGradWeightOp,
            tfm::LinearGradWeightBiasOp, AllGatherMatmulOp,
            AllGatherMatmulGeluOp, AllGatherMatmulGradWeightOp,
            MatmulReduceScatterOp>([](auto o) { return gemmsOf(o); })
      .Default([](Operation *) { return SmallVector<GemmShape>(); });
}

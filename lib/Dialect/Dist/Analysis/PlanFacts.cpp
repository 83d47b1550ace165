//===- PlanFacts.cpp - in-place results and gradient transfer of each op --===//
//
// The external models of InPlaceOpInterface and GradTransferOpInterface
// (PlanFacts.h) for every tfm and dist op. Each op appears in one list per
// interface, those with nothing to declare too: a new op in none of them
// fails unittests/Dialect/Dist/OpInterfacesTest.cpp, and the analyses
// refuse it where they ask.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Analysis/PlanFacts.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

#include "seqpar/Dialect/Dist/Analysis/PlanFactsInterfaces.cpp.inc"

namespace {

//===------------------------------ in place ------------------------------===//

/// Result 0 may be written over operand 0 (an all-reduce's buffer, a
/// scale's input).
template <typename OpT>
struct OverFirstOperand
    : InPlaceOpInterface::ExternalModel<OverFirstOperand<OpT>, OpT> {
  std::optional<unsigned> getInPlaceOperand(Operation *,
                                            unsigned result) const {
    return result == 0 ? std::optional<unsigned>(0) : std::nullopt;
  }
};

/// Result i may be written over operand i (a coalesced all-reduce).
template <typename OpT>
struct OverOwnOperand
    : InPlaceOpInterface::ExternalModel<OverOwnOperand<OpT>, OpT> {
  std::optional<unsigned> getInPlaceOperand(Operation *op,
                                            unsigned result) const {
    return result < op->getNumOperands() ? std::optional<unsigned>(result)
                                         : std::nullopt;
  }
};

/// Every result has its own buffer.
template <typename OpT>
struct NotInPlace : InPlaceOpInterface::ExternalModel<NotInPlace<OpT>, OpT> {
  std::optional<unsigned> getInPlaceOperand(Operation *, unsigned) const {
    return std::nullopt;
  }
};

//===--------------------------- gradient transfer ------------------------===//

template <typename OpT, GradTransfer::Kind K>
struct Transfers
    : GradTransferOpInterface::ExternalModel<Transfers<OpT, K>, OpT> {
  GradTransfer getGradTransfer(Operation *) const { return {K}; }
};

/// An all-reduce (coalesced or not): its axis and kind.
template <typename OpT>
struct Reduces : GradTransferOpInterface::ExternalModel<Reduces<OpT>, OpT> {
  GradTransfer getGradTransfer(Operation *op) const {
    auto o = cast<OpT>(op);
    return {GradTransfer::reduce, o.getAxis(), o.getKind()};
  }
};

/// A reduce-scatter (coalesced or not): a sum over its axis.
template <typename OpT>
struct Scatters : GradTransferOpInterface::ExternalModel<Scatters<OpT>, OpT> {
  GradTransfer getGradTransfer(Operation *op) const {
    return {GradTransfer::reduce, cast<CollectiveOpInterface>(op).getMeshAxis(),
            ReductionKind::sum};
  }
};

template <template <typename> class Model, typename... Ops>
void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<Model<Ops>>(*ctx), ...);
}

template <GradTransfer::Kind K, typename... Ops>
void attachTransfer(MLIRContext *ctx) {
  (Ops::template attachInterface<Transfers<Ops, K>>(*ctx), ...);
}

/// Ops with nothing to declare: results in buffers of their own, no
/// gradient the proof follows through them.
template <typename... Ops> void attachPlain(MLIRContext *ctx) {
  attach<NotInPlace, Ops...>(ctx);
  attachTransfer<GradTransfer::opaque, Ops...>(ctx);
}

} // namespace

void dist::registerPlanFactsModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tfm::TfmDialect *) {
    using namespace tfm;
    attach<OverFirstOperand, ScaleOp>(ctx);
    attach<NotInPlace, AddOp, ConvertOp>(ctx);
    attachTransfer<GradTransfer::same, ConvertOp, ScaleOp>(ctx);
    attachTransfer<GradTransfer::sum, AddOp>(ctx);
    attachPlain<
        // Forward.
        ParamOp, GetParamOp, PositionIdsOp, MicroBatchOp, EmbeddingOp,
        LayerNormOp, RmsNormOp, DropoutOp, QkvSplitOp, GeluOp, SiluOp, ReluOp,
        MulOp, BiasAddOp, RepeatHeadsOp, LinearOp, AttentionOp, LogitsMaxOp,
        LogitsSumExpOp, LabelLogitOp, CrossEntropyFromStatsOp, CrossEntropyOp,
        LabelCountOp, HyperparameterOp,
        // Backward: each makes new contributions (autodiff tags its results)
        // from what it reads.
        LinearGradInputOp, LinearGradWeightOp, AttentionGradOp, BiasGradOp,
        LayerNormGradOp, RmsNormGradOp, GeluGradOp, SiluGradOp, ReluGradOp,
        FillOp, EmbeddingGradOp, QkvConcatOp, RepeatHeadsGradOp,
        CrossEntropyGradOp, CrossEntropyFromStatsGradOp, LogitsSumExpGradOp,
        LabelLogitGradOp,
        // Fused.
        DropoutAddOp, LinearGeluOp, LinearGeluGradOp, LinearGradWeightBiasOp,
        SwigluOp, SwigluGradOp, AddLayerNormOp, AddRmsNormOp,
        // Optimizer.
        SumSquaresOp, ClipScaleOp, SgdUpdateOp, AdamWUpdateOp,
        // Structure: the proof interprets a loop's body itself.
        MicroBatchLoopOp, YieldOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    attach<OverFirstOperand, AllReduceOp>(ctx);
    attach<OverOwnOperand, AllReduceCoalescedOp>(ctx);
    attach<Reduces, AllReduceOp, AllReduceCoalescedOp>(ctx);
    attach<NotInPlace, ReduceScatterOp, ReduceScatterCoalescedOp, AllGatherOp,
           LocalSliceOp, AllToAllOp>(ctx);
    attach<Scatters, ReduceScatterOp, ReduceScatterCoalescedOp>(ctx);
    attachTransfer<GradTransfer::same, AllGatherOp, LocalSliceOp, AllToAllOp>(
        ctx);
    // A recv holds what its matched send sent: the proof reads the
    // pipeline schedule for it.
    attachPlain<MeshOp, AllGatherParamOp, SendOp, RecvOp, AllGatherMatmulOp,
                AllGatherMatmulGeluOp, MatmulReduceScatterOp,
                AllGatherMatmulGradWeightOp, RingAttentionOp,
                RingAttentionGradOp>(ctx);
  });
}

//===- DistBackward.cpp - transposes of dist collectives ------------------===//
//
// The backward of each collective sp-partition puts in a forward, attached
// to the op as tfm's DifferentiableOpInterface (an external model: tfm's ODS
// does not know dist): all_gather <-> reduce_scatter (or local_slice, for a
// replicated gradient), local_slice -> all_gather, all_reduce sum ->
// identity, all_reduce mean -> a scale, send <-> recv (pipeline stages),
// ring_attention -> ring_attention_grad (context parallelism's ring).
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/DistBackward.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using tfm::BackwardContext;
using tfm::DifferentiableOpInterface;

namespace {

/// all_gather: S(dim) -> R. Its transpose reduce-scatters partial
/// contributions straight into the shard (the backward of sequence
/// parallelism's all-gather); a replicated gradient is sliced.
struct AllGatherTranspose
    : DifferentiableOpInterface::ExternalModel<AllGatherTranspose,
                                               AllGatherOp> {
  LogicalResult buildBackward(Operation *op, BackwardContext &ctx) const {
    auto o = cast<AllGatherOp>(op);
    OpBuilder &b = ctx.getBuilder();
    SmallVector<Value, 2> parts = ctx.getContributions(o.getResult());
    bool allPartial = llvm::all_of(parts, [&](Value g) {
      return LayoutAttr::ofType(g.getType())
          .getSharding(o.getAxis())
          .isPartial();
    });
    auto inType = ctx.gradType(o.getInput().getType());
    if (allPartial) {
      Value total = ctx.sum(parts, o.getLoc());
      ctx.contribute(o.getInput(),
                     b.create<ReduceScatterOp>(o.getLoc(), inType, total,
                                               o.getMeshAttr(), o.getAxisAttr(),
                                               o.getDimAttr()));
      return success();
    }
    ctx.contribute(o.getInput(),
                   b.create<LocalSliceOp>(
                       o.getLoc(), inType, ctx.gradient(o.getResult()),
                       o.getMeshAttr(), o.getAxisAttr(), o.getDimAttr()));
    return success();
  }
};

/// reduce_scatter (P -> S(dim)) and local_slice (R -> S(dim)): the
/// transpose of each is an all_gather of the gradient along `dim`.
template <typename OpT>
struct GatherTranspose
    : DifferentiableOpInterface::ExternalModel<GatherTranspose<OpT>, OpT> {
  LogicalResult buildBackward(Operation *op, BackwardContext &ctx) const {
    auto o = cast<OpT>(op);
    Value x = o.getInput();
    ctx.contribute(x, ctx.getBuilder().create<AllGatherOp>(
                          o.getLoc(), ctx.gradType(x.getType()),
                          ctx.gradient(o.getResult()), o.getMeshAttr(),
                          o.getAxisAttr(), o.getDimAttr()));
    return success();
  }
};

/// all_reduce: a sum's transpose is the identity, a mean's a scale by
/// 1 / axis size. A max or min selects; its only use in a forward (the
/// loss's max, subtracted for stability) has a zero gradient.
struct AllReduceTranspose
    : DifferentiableOpInterface::ExternalModel<AllReduceTranspose,
                                               AllReduceOp> {
  LogicalResult buildBackward(Operation *op, BackwardContext &ctx) const {
    auto o = cast<AllReduceOp>(op);
    Value dy = ctx.gradient(o.getResult());
    switch (o.getKind()) {
    case ReductionKind::sum:
      ctx.contribute(o.getInput(), dy);
      return success();
    case ReductionKind::mean: {
      MeshOp mesh =
          SymbolTable::lookupNearestSymbolFrom<MeshOp>(o, o.getMeshAttr());
      double n = double(*mesh.getAxisSize(o.getAxis()));
      OpBuilder &b = ctx.getBuilder();
      ctx.contribute(
          o.getInput(),
          b.create<tfm::ScaleOp>(o.getLoc(), dy, b.getF64FloatAttr(1.0 / n)));
      return success();
    }
    default:
      return success();
    }
  }
};

/// send (to the rank `offset` along the axis): its operand's gradient comes
/// back from that rank, `recv offset` (the same offset), in the operand's
/// gradient type.
struct SendTranspose
    : DifferentiableOpInterface::ExternalModel<SendTranspose, SendOp> {
  LogicalResult buildBackward(Operation *op, BackwardContext &ctx) const {
    auto o = cast<SendOp>(op);
    ctx.contribute(o.getInput(),
                   ctx.getBuilder().create<RecvOp>(
                       o.getLoc(), ctx.gradType(o.getInput().getType()),
                       o.getMeshAttr(), o.getAxisAttr(), o.getOffsetAttr()));
    return success();
  }
};

/// recv (from the rank `offset` along the axis): its result's gradient goes
/// back to that rank, `send offset`, zeros when it has none (the sender's
/// backward waits for it).
struct RecvTranspose
    : DifferentiableOpInterface::ExternalModel<RecvTranspose, RecvOp> {
  LogicalResult buildBackward(Operation *op, BackwardContext &ctx) const {
    auto o = cast<RecvOp>(op);
    ctx.getBuilder().create<SendOp>(
        o.getLoc(), ctx.gradientOrZeros(o.getResult()), o.getMeshAttr(),
        o.getAxisAttr(), o.getOffsetAttr());
    return success();
  }
};

/// ring_attention: its backward is ring_attention_grad from the result's
/// gradient and the forward's q, k, v, result and lse (kept); K/V and their
/// gradients travel the ring again, so dq, dk and dv come back as this
/// rank's zigzag parts, whole (not partial).
struct RingAttentionTranspose
    : DifferentiableOpInterface::ExternalModel<RingAttentionTranspose,
                                               RingAttentionOp> {
  LogicalResult buildBackward(Operation *op, BackwardContext &ctx) const {
    auto o = cast<RingAttentionOp>(op);
    // Position ids from tfm.position_ids are computed again (nothing to
    // keep), as tfm.attention's backward does.
    Value positions = o.getPositions();
    if (auto ids = dyn_cast_or_null<tfm::PositionIdsOp>(
            positions ? positions.getDefiningOp() : nullptr))
      positions = ctx.getBuilder().clone(*ids)->getResult(0);
    auto grad = ctx.getBuilder().create<RingAttentionGradOp>(
        o.getLoc(),
        TypeRange{ctx.gradType(o.getQ().getType()),
                  ctx.gradType(o.getK().getType()),
                  ctx.gradType(o.getV().getType())},
        ctx.gradient(o.getResult()), o.getQ(), o.getK(), o.getV(),
        o.getResult(), o.getLse(), positions, o.getMeshAttr(), o.getAxisAttr(),
        o.getNumHeadsAttr(), o.getNumKvHeadsAttr(), o.getHeadDimAttr(),
        o.getCausalAttr(), o.getRotaryDimAttr(), o.getRotaryThetaAttr(),
        o.getDropoutRateAttr(), o.getDropoutStreamAttr(),
        o.getDocumentCausalAttr());
    ctx.contribute(o.getQ(), grad.getDq());
    ctx.contribute(o.getK(), grad.getDk());
    ctx.contribute(o.getV(), grad.getDv());
    return success();
  }
};

/// What ring_attention's backward reads from the forward: q, k, v (this
/// rank's zigzag parts), positions unless tfm.position_ids computes them
/// again, the result and lse. No [s, s] probabilities: the backward
/// recomputes them block by block from lse.
struct RingAttentionSaved
    : tfm::SavedForBackwardOpInterface::ExternalModel<RingAttentionSaved,
                                                      RingAttentionOp> {
  void getSavedForBackward(Operation *op,
                           SmallVectorImpl<tfm::SavedTensor> &saved) const {
    auto o = cast<RingAttentionOp>(op);
    saved.push_back(tfm::SavedTensor::of(o.getQ(), "query"));
    saved.push_back(tfm::SavedTensor::of(o.getK(), "key"));
    saved.push_back(tfm::SavedTensor::of(o.getV(), "value"));
    if (Value p = o.getPositions(); p && !p.getDefiningOp<tfm::PositionIdsOp>())
      saved.push_back(tfm::SavedTensor::of(p, "position ids"));
    saved.push_back(tfm::SavedTensor::of(o.getResult(), "attention output"));
    saved.push_back(tfm::SavedTensor::of(o.getLse(), "log-sum-exp"));
  }
};

/// What a fused collective GEMM's backward reads: the input of the linear
/// it replaces (for all_gather_matmul, the shard, gathered again).
template <typename OpT>
struct KeepsGemmInput
    : tfm::SavedForBackwardOpInterface::ExternalModel<KeepsGemmInput<OpT>,
                                                      OpT> {
  void getSavedForBackward(Operation *op,
                           SmallVectorImpl<tfm::SavedTensor> &saved) const {
    saved.push_back(
        tfm::SavedTensor::of(cast<OpT>(op).getInput(), "GEMM input"));
  }
};

/// The fused gather + GEMM + GELU keeps what dist.all_gather_matmul and
/// tfm.gelu keep (as tfm.linear_gelu keeps tfm.linear's and tfm.gelu's).
struct GatherGeluSaved
    : tfm::SavedForBackwardOpInterface::ExternalModel<GatherGeluSaved,
                                                      AllGatherMatmulGeluOp> {
  void getSavedForBackward(Operation *op,
                           SmallVectorImpl<tfm::SavedTensor> &saved) const {
    auto o = cast<AllGatherMatmulGeluOp>(op);
    saved.push_back(tfm::SavedTensor::of(o.getInput(), "GEMM input"));
    saved.push_back(tfm::SavedTensor::of(o.getPre(), "activation input"));
  }
};

/// A collective whose backward reads nothing of its forward (its transpose
/// is another collective of the gradient), a backward op (nothing comes
/// after it to read what it keeps), or the mesh.
template <typename OpT>
struct KeepsNothing
    : tfm::SavedForBackwardOpInterface::ExternalModel<KeepsNothing<OpT>, OpT> {
  void getSavedForBackward(Operation *,
                           SmallVectorImpl<tfm::SavedTensor> &) const {}
};

template <template <typename> class Model, typename... Ops>
void attachSaved(MLIRContext *ctx) {
  (Ops::template attachInterface<Model<Ops>>(*ctx), ...);
}

} // namespace

void dist::registerSavedForBackwardModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    attachSaved<KeepsGemmInput, AllGatherMatmulOp, MatmulReduceScatterOp>(ctx);
    AllGatherMatmulGeluOp::attachInterface<GatherGeluSaved>(*ctx);
    attachSaved<KeepsNothing, MeshOp, AllGatherOp, ReduceScatterOp, AllReduceOp,
                AllReduceCoalescedOp, ReduceScatterCoalescedOp,
                AllGatherParamOp, AllToAllOp, LocalSliceOp, SendOp, RecvOp,
                AllGatherMatmulGradWeightOp, RingAttentionGradOp>(ctx);
  });
}

void dist::registerDifferentiableOpModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DistDialect *) {
    AllGatherOp::attachInterface<AllGatherTranspose>(*ctx);
    ReduceScatterOp::attachInterface<GatherTranspose<ReduceScatterOp>>(*ctx);
    LocalSliceOp::attachInterface<GatherTranspose<LocalSliceOp>>(*ctx);
    AllReduceOp::attachInterface<AllReduceTranspose>(*ctx);
    SendOp::attachInterface<SendTranspose>(*ctx);
    RecvOp::attachInterface<RecvTranspose>(*ctx);
    RingAttentionOp::attachInterface<RingAttentionTranspose,
                                     RingAttentionSaved>(*ctx);
  });
}

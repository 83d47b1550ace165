//===- ShardingInterfaces.td - per-op rules and rewrites --*- tablegen -*-===//
//
// What one op means to the SPMD passes, declared by the op (or attached to it
// as an external model: tfm's ops get theirs from dist, so tfm does not
// depend on dist): its layout rule, which sp-verify checks, and its local
// rewrite, which sp-partition applies.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_IR_SHARDINGINTERFACES_TD
#define SEQPAR_DIALECT_DIST_IR_SHARDINGINTERFACES_TD

include "mlir/IR/OpBase.td"

def Dist_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let description = [{
    The layout rule of an op on one mesh axis (DESIGN.md section 3): the
    shardings its results must have given its operands' shardings. An
    unacceptable combination of operands (a norm of a partial value, a GEMM
    contracting a split dimension against a whole weight, attention over a
    split sequence, ...) is a bug in the SPMD program: the rule emits a
    diagnostic at the op naming the operand and the axis, and fails.
  }];
  let methods = [
    InterfaceMethod<[{
        The shardings of the op's results on mesh axis `axis` (one per
        result), or a diagnostic at the op and failure.
      }], "::mlir::FailureOr<::llvm::SmallVector<::seqpar::dist::Sharding>>",
      "inferResultShardings", (ins "::llvm::StringRef":$axis)>,
  ];
}

def Dist_PartitionOpInterface : OpInterface<"PartitionOpInterface"> {
  let cppNamespace = "::seqpar::dist";
  let description = [{
    The local rewrite sp-partition applies to an op: given the partitioner's
    state and placement policy (a `PartitionContext`: the new value of an old
    one in a wanted sharding, parameter shards, the residual stream's layout,
    ...), it emits the op's per-rank counterpart on local shapes and maps the
    old results to the new values. Where to place what (the residual stream,
    column or row GEMMs, the data-parallel loss mean) is the partitioner's
    policy; how one op is rewritten for a placement is the op's.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits the per-rank counterpart of the op at the context's builder and
        maps every result (`ctx.map`), or emits a diagnostic and fails.
      }], "::mlir::LogicalResult", "partition",
      (ins "::seqpar::dist::PartitionContext &":$ctx)>,
    InterfaceMethod<[{
        Whether the op works on `operand` split on its last dimension
        (local heads, features or vocabulary) without gathering it: a GEMM
        whose result feeds only such uses is made column-parallel.
      }], "bool", "worksOnSplitFeatures",
      (ins "::mlir::OpOperand &":$operand,
           "::seqpar::dist::PartitionContext &":$ctx), [{}], [{
        return false;
      }]>,
    InterfaceMethod<[{
        Into how many equal blocks a split of `operand`'s last dimension must
        be cut (1: a contiguous split; 3: a fused [q | k | v] projection),
        which a column-parallel producer follows.
      }], "int64_t", "getSplitFeatureBlocks",
      (ins "::mlir::OpOperand &":$operand), [{}], [{
        return 1;
      }]>,
  ];
}

#endif // SEQPAR_DIALECT_DIST_IR_SHARDINGINTERFACES_TD

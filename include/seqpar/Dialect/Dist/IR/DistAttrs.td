//===- DistAttrs.td - dist attributes ----------------------*- tablegen -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DISTATTRS_TD
#define SEQPAR_DIALECT_DIST_IR_DISTATTRS_TD

include "seqpar/Dialect/Dist/IR/DistDialect.td"

class Dist_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dist_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Dist_LayoutAttr : Dist_Attr<"Layout", "layout"> {
  let summary = "per-mesh-axis layout of a distributed tensor";
  let description = [{
    For each mesh axis the value is split over, `S(d)` (split along tensor
    dimension d) or `P` (each rank holds an addend of the value); every axis
    not listed is replicated (`R`). `S(d, blocks = k)` first cuts dimension d
    into k equal blocks and splits each block over the axis, so a rank holds
    its part of every block (GPT-2's fused `[q | k | v]` projection). Axes are kept sorted by name so that equal
    layouts are equal attributes. Used as a tensor encoding, the shape is
    the local (per-rank) shape.

    ```mlir
    tensor<512x4x1024xf32, #dist.layout<dp = S(1), tp = S(0)>>
    tensor<512x4x1024xf32, #dist.layout<tp = P>>
    tensor<768x576xf32, #dist.layout<tp = S(1, blocks = 3)>>
    ```

    **Constraints**
    - axis names are non-empty and appear once each;
    - split dimensions are >= 0 (and below the rank of the tensor they
      annotate, checked by the ops that use it);
    - block counts are >= 1.
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr">:$axes,
                        ArrayRefParameter<"int64_t">:$shardings,
                        ArrayRefParameter<"int64_t">:$blocks);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Encoded sharding values: S(d) is d >= 0, P is kPartial.
    static constexpr int64_t kPartial = -1;

    /// The layout for the given (axis, sharding) pairs; replicated entries are
    /// dropped and the rest sorted by axis name.
    static LayoutAttr get(::mlir::MLIRContext *ctx,
                          ::llvm::ArrayRef<std::pair<::llvm::StringRef, Sharding>>
                              entries);
    /// The layout carried by a tensor type's encoding, or null.
    static LayoutAttr fromType(::mlir::Type type);
    /// The layout of a tensor type: its encoding, or (without one) the empty
    /// layout, replicated on every axis.
    static LayoutAttr ofType(::mlir::Type type);

    Sharding getSharding(::llvm::StringRef axis) const;
    /// The sharding of the i-th listed axis.
    Sharding getSharding(size_t i) const;
    /// This layout with `axis` changed to `sharding`.
    LayoutAttr with(::llvm::StringRef axis, Sharding sharding) const;
  }];
}

#endif // SEQPAR_DIALECT_DIST_IR_DISTATTRS_TD

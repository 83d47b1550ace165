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
    The layout names the `dist.mesh` it is on (as Shardy's sharding does),
    then, for each mesh axis the value is split over, `S(d)` (split along
    tensor dimension d) or `P` (each rank holds an addend of the value);
    every axis not listed is replicated (`R`). `S(d, blocks = k)` first cuts
    dimension d into k equal blocks and splits each block over the axis, so a
    rank holds its part of every block (GPT-2's fused `[q | k | v]`
    projection). `S(d, zigzag)` is context parallelism's load-balanced
    split: dimension d is cut into 2n chunks over an axis of n ranks and the
    rank with coordinate r holds chunk r, then chunk 2n-1-r. A zigzag split
    is the outermost split of its dimension (one per dimension); another
    axis splitting the same dimension cuts the rank's zigzag part
    contiguously (sequence parallelism inside a context-parallel rank).
    Axes are kept sorted by name so that two layouts of the same
    mesh with the same entries are the same attribute. Used as a tensor
    encoding, the shape is the local (per-rank) shape.

    ```mlir
    tensor<512x4x1024xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
    tensor<512x4x1024xf32, #dist.layout<@mesh, tp = P>>
    tensor<768x576xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>
    tensor<128x4x1024xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>>
    ```

    **Constraints**
    - a layout with entries names its mesh; the empty layout (replicated on
      every axis) may be written `#dist.layout<@mesh>` or, naming no mesh,
      `#dist.layout<>` (the code never attaches an empty layout to a type);
    - the mesh is the module's mesh (checked by sp-verify, and by each
      collective against the mesh it runs on);
    - axis names are non-empty and appear once each;
    - split dimensions are >= 0 (and below the rank of the tensor they
      annotate, checked by the ops that use it);
    - block counts are >= 1;
    - at most one axis splits a dimension in zigzag.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$mesh,
                        ArrayRefParameter<"::mlir::StringAttr">:$axes,
                        ArrayRefParameter<"int64_t">:$shardings,
                        ArrayRefParameter<"int64_t">:$blocks);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Encoded sharding values: S(d) is d >= 0, P is kPartial.
    static constexpr int64_t kPartial = -1;
    /// The block count that encodes a zigzag split.
    static constexpr int64_t kZigzag = -1;

    /// The layout on `mesh` for the given (axis, sharding) pairs; replicated
    /// entries are dropped and the rest sorted by axis name. `mesh` may be
    /// null only if no entry is left.
    static LayoutAttr get(::mlir::MLIRContext *ctx,
                          ::mlir::FlatSymbolRefAttr mesh,
                          ::llvm::ArrayRef<std::pair<::llvm::StringRef, Sharding>>
                              entries);
    /// The layout carried by a tensor type's encoding, or null.
    static LayoutAttr fromType(::mlir::Type type);
    /// The layout of a tensor type: its encoding, or (without one) the empty
    /// layout of `mesh` (replicated on every axis; no mesh by default).
    static LayoutAttr ofType(::mlir::Type type,
                             ::mlir::FlatSymbolRefAttr mesh = {});

    Sharding getSharding(::llvm::StringRef axis) const;
    /// The sharding of the i-th listed axis.
    Sharding getSharding(size_t i) const;
    /// This layout, on the same mesh, with `axis` changed to `sharding`. A
    /// layout that names no mesh (the empty layout of an unencoded type) can
    /// only be made replicated this way: use the overload that names one.
    LayoutAttr with(::llvm::StringRef axis, Sharding sharding) const;
    /// This layout on `mesh` (which it must name already, if it names one)
    /// with `axis` changed to `sharding`.
    LayoutAttr with(::mlir::FlatSymbolRefAttr mesh, ::llvm::StringRef axis,
                    Sharding sharding) const;
  }];
}

#endif // SEQPAR_DIALECT_DIST_IR_DISTATTRS_TD

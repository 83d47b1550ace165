//===- DistOps.cpp - dist operation verifiers -----------------------------===//

#include "CollectiveChecker.h"

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using checks::CollectiveChecker;

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

/// `[` ("name" `=` size) % `,` `]` (`roles` `[` role % `,` `]`)?
static ParseResult parseMeshAxes(OpAsmParser &parser, ArrayAttr &names,
                                 DenseI64ArrayAttr &sizes,
                                 DenseI32ArrayAttr &roles) {
  SmallVector<Attribute> nameAttrs;
  SmallVector<int64_t> sizeValues;
  auto parseAxis = [&]() -> ParseResult {
    std::string name;
    int64_t size = 0;
    if (parser.parseString(&name) || parser.parseEqual() ||
        parser.parseInteger(size))
      return failure();
    nameAttrs.push_back(parser.getBuilder().getStringAttr(name));
    sizeValues.push_back(size);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseAxis))
    return failure();
  names = parser.getBuilder().getArrayAttr(nameAttrs);
  sizes = parser.getBuilder().getDenseI64ArrayAttr(sizeValues);
  if (failed(parser.parseOptionalKeyword("roles")))
    return success();
  SmallVector<int32_t> roleValues;
  auto parseRole = [&]() -> ParseResult {
    StringRef keyword;
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<AxisRole> role = symbolizeAxisRole(keyword);
    if (!role)
      return parser.emitError(at) << "unknown mesh axis role '" << keyword
                                  << "' (data, tensor, context, pipeline)";
    roleValues.push_back(int32_t(*role));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseRole))
    return failure();
  roles = parser.getBuilder().getDenseI32ArrayAttr(roleValues);
  return success();
}

static void printMeshAxes(OpAsmPrinter &printer, Operation *, ArrayAttr names,
                          DenseI64ArrayAttr sizes, DenseI32ArrayAttr roles) {
  printer << '[';
  llvm::interleaveComma(
      llvm::zip(names, sizes.asArrayRef()), printer, [&](auto axis) {
        printer << std::get<0>(axis) << " = " << std::get<1>(axis);
      });
  printer << ']';
  if (!roles)
    return;
  printer << " roles [";
  llvm::interleaveComma(roles.asArrayRef(), printer, [&](int32_t role) {
    std::optional<AxisRole> r = symbolizeAxisRole(role);
    printer << (r ? stringifyAxisRole(*r) : StringRef("<invalid>"));
  });
  printer << ']';
}

LogicalResult MeshOp::verify() {
  ArrayRef<int64_t> sizes = getAxisSizes();
  if (getAxisNames().size() != sizes.size())
    return emitOpError() << "has " << getAxisNames().size()
                         << " axis names but " << sizes.size() << " sizes";
  if (sizes.empty())
    return emitOpError() << "needs at least one axis";
  llvm::StringSet<> seen;
  for (auto [nameAttr, size] : llvm::zip(getAxisNames(), sizes)) {
    StringRef name = cast<StringAttr>(nameAttr).getValue();
    if (name.empty())
      return emitOpError() << "axis names must be non-empty";
    if (!seen.insert(name).second)
      return emitOpError() << "axis '" << name << "' appears twice";
    if (size < 1)
      return emitOpError() << "axis '" << name << "' must have size >= 1, got "
                           << size;
  }
  if (DenseI32ArrayAttr roles = getAxisRolesAttr()) {
    if (roles.size() != int64_t(sizes.size()))
      return emitOpError() << "has " << roles.size() << " roles for "
                           << sizes.size() << " axes";
    SmallVector<bool> seenRole(getMaxEnumValForAxisRole() + 1, false);
    for (auto [nameAttr, role] :
         llvm::zip(getAxisNames(), roles.asArrayRef())) {
      std::optional<AxisRole> r = symbolizeAxisRole(role);
      if (!r)
        return emitOpError()
               << "axis '" << cast<StringAttr>(nameAttr).getValue()
               << "' has the invalid role " << role;
      if (seenRole[role])
        return emitOpError() << "role '" << stringifyAxisRole(*r)
                             << "' is given to more than one axis";
      seenRole[role] = true;
    }
  }
  int64_t ranks = 1;
  for (int64_t size : sizes) {
    std::optional<int64_t> next = llvm::checkedMul<int64_t>(ranks, size);
    if (!next) {
      auto diag = emitOpError() << "size (the product of its axis sizes ";
      llvm::interleave(sizes, diag, " * ");
      return diag << ") overflows int64";
    }
    ranks = *next;
  }
  return success();
}

std::optional<int64_t> MeshOp::getAxisSize(StringRef axis) {
  for (auto [nameAttr, size] : llvm::zip(getAxisNames(), getAxisSizes()))
    if (cast<StringAttr>(nameAttr).getValue() == axis)
      return size;
  return std::nullopt;
}

FailureOr<MeshOp> dist::getMesh(ModuleOp module) {
  MeshOp mesh;
  for (MeshOp m : module.getOps<MeshOp>()) {
    if (mesh)
      return m.emitOpError()
             << "is a second mesh, but the SPMD passes take a module with at "
                "most one (mesh @"
             << mesh.getSymName() << " is the first)";
    mesh = m;
  }
  return mesh;
}

std::optional<AxisRole> MeshOp::getAxisRole(StringRef axis) {
  DenseI32ArrayAttr roles = getAxisRolesAttr();
  if (!roles)
    return std::nullopt;
  for (auto [nameAttr, role] : llvm::zip(getAxisNames(), roles.asArrayRef()))
    if (cast<StringAttr>(nameAttr).getValue() == axis)
      return symbolizeAxisRole(role);
  return std::nullopt;
}

std::optional<StringRef> MeshOp::getAxisWithRole(AxisRole role) {
  DenseI32ArrayAttr roles = getAxisRolesAttr();
  if (!roles)
    return std::nullopt;
  for (auto [nameAttr, r] : llvm::zip(getAxisNames(), roles.asArrayRef()))
    if (r == int32_t(role))
      return cast<StringAttr>(nameAttr).getValue();
  return std::nullopt;
}

int64_t MeshOp::getNumRanks() {
  int64_t n = 1;
  for (int64_t s : getAxisSizes())
    n *= s;
  return n;
}

//===----------------------------------------------------------------------===//
// Shared collective checks
//===----------------------------------------------------------------------===//

LogicalResult
dist::verifyLayoutOnMesh(Type type, MeshOp mesh,
                         function_ref<InFlightDiagnostic()> emitError) {
  LayoutAttr layout = LayoutAttr::fromType(type);
  if (!layout)
    return success();
  if (layout.getMesh() && layout.getMesh().getAttr() != mesh.getSymNameAttr())
    return emitError() << "names mesh " << layout.getMesh()
                       << " but is used on mesh @" << mesh.getSymName();
  auto t = cast<RankedTensorType>(type);
  for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
    if (!mesh.getAxisSize(axis.getValue()))
      return emitError() << "names axis '" << axis.getValue() << "' that mesh @"
                         << mesh.getSymName() << " does not have";
    Sharding s = layout.getSharding(i);
    if (!s.isSplit())
      continue;
    if (s.dim >= t.getRank())
      return emitError() << "splits dimension " << s.dim << " of a rank-"
                         << t.getRank() << " tensor on axis '"
                         << axis.getValue() << "'";
    if (t.getDimSize(s.dim) % s.blocks != 0)
      return emitError() << "cuts dimension " << s.dim << " of local size "
                         << t.getDimSize(s.dim) << " into " << s.blocks
                         << " blocks on axis '" << axis.getValue() << "'";
  }
  return success();
}

static LogicalResult verifyAllGatherParam(AllGatherParamOp op, MeshOp mesh,
                                          int64_t n,
                                          SymbolTableCollection &symbolTable);

LogicalResult
dist::verifyCollectiveSymbolUses(CollectiveOpInterface op,
                                 SymbolTableCollection &symbolTable) {
  Operation *o = op.getOperation();
  auto mesh = symbolTable.lookupNearestSymbolFrom<MeshOp>(o, op.getMeshRef());
  if (!mesh)
    return o->emitOpError() << "'" << op.getMeshRef().getValue()
                            << "' does not name a dist.mesh";
  std::optional<int64_t> size = mesh.getAxisSize(op.getMeshAxis());
  if (!size) {
    std::string axes;
    llvm::raw_string_ostream os(axes);
    llvm::interleaveComma(mesh.getAxisNames(), os, [&](Attribute a) {
      os << cast<StringAttr>(a).getValue();
    });
    return o->emitOpError()
           << "axis '" << op.getMeshAxis() << "' is not an axis of mesh @"
           << mesh.getSymName() << " (" << axes << ")";
  }
  auto checkType = [&](Type t, StringRef what, unsigned i) -> LogicalResult {
    return verifyLayoutOnMesh(t, mesh, [&]() {
      return o->emitOpError() << "layout of " << what << " #" << i << " ";
    });
  };
  for (auto [i, v] : llvm::enumerate(o->getOperands()))
    if (failed(checkType(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(o->getResults()))
    if (failed(checkType(v.getType(), "result", i)))
      return failure();
  if (auto gather = dyn_cast<AllGatherParamOp>(o))
    return verifyAllGatherParam(gather, mesh, *size, symbolTable);
  if (isa<RingAttentionOp, RingAttentionGradOp>(o) &&
      failed(verifyRingAttentionAxis(o, mesh, op.getMeshAxis())))
    return failure();
  return op.verifyWithAxisSize(*size);
}

/// The split along `d` on `axis` that the split side of a one-dimension
/// collective has: the zigzag split when its layout says so, else S(d).
static Sharding splitSide(Value split, StringRef axis, int64_t d) {
  Sharding s = typeSharding(split, axis);
  return s.isZigzag() && s.dim == d ? Sharding::zigzagSplit(d)
                                    : Sharding::split(d);
}

/// A collective that changes one dimension by the axis size: gathered
/// (multiplied) or scattered / sliced (divided), with its layout transition.
/// `split` is its side split over the axis (the input of a gather, the
/// result of a scatter or slice).
static LogicalResult verifyOneDim(Operation *op, Value input, Value result,
                                  StringRef axis, int64_t n, int64_t d,
                                  bool gathers, Sharding from, Sharding to) {
  CollectiveChecker c{op, axis, n};
  auto in = c.type(input), out = c.type(result);
  if (failed(c.dimInRange("dim", d, in.getRank())) ||
      failed(c.scaled(in, out, {{d, gathers}})))
    return failure();
  // A zigzag split is its dimension's outermost: the runtime moves whole
  // zigzag parts, so no other axis may cut them.
  Sharding zigzag = gathers ? from : to;
  if (zigzag.isZigzag())
    if (LayoutAttr l = LayoutAttr::fromType(gathers ? in : out))
      for (auto [i, other] : llvm::enumerate(l.getAxes())) {
        Sharding s = l.getSharding(i);
        if (other.getValue() != axis && s.isSplit() && s.dim == d)
          return op->emitOpError()
                 << "moves the zigzag split of dimension " << d << " over '"
                 << axis << "' while axis '" << other.getValue()
                 << "' also splits it: gather '" << other.getValue()
                 << "' first";
      }
  return c.transition(in, out, from, to);
}

LogicalResult AllGatherOp::verifyWithAxisSize(int64_t n) {
  return verifyOneDim(*this, getInput(), getResult(), getAxis(), n, getDim(),
                      /*gathers=*/true,
                      splitSide(getInput(), getAxis(), getDim()),
                      Sharding::replicated());
}

LogicalResult ReduceScatterOp::verifyWithAxisSize(int64_t n) {
  return verifyOneDim(*this, getInput(), getResult(), getAxis(), n, getDim(),
                      /*gathers=*/false, Sharding::partial(),
                      splitSide(getResult(), getAxis(), getDim()));
}

LogicalResult AllReduceOp::verifyWithAxisSize(int64_t n) {
  CollectiveChecker c{*this, getAxis(), n};
  auto in = c.type(getInput()), out = c.type(getResult());
  if (failed(c.scaled(in, out, {})))
    return failure();
  return c.transition(in, out, Sharding::partial(), Sharding::replicated());
}

/// A coalesced collective has at least one operand and a result for each.
static LogicalResult verifyCoalescedCounts(Operation *op) {
  if (op->getNumOperands() == 0 || op->getNumOperands() != op->getNumResults())
    return op->emitOpError()
           << "needs at least one operand and one result per operand, got "
           << op->getNumOperands() << " and " << op->getNumResults();
  return success();
}

/// An async coalesced collective completes before the first reader of a
/// result (its wait point): it needs one.
static LogicalResult verifyAsync(Operation *op) {
  if (llvm::all_of(op->getResults(), [](Value r) { return r.use_empty(); }))
    return op->emitOpError()
           << "is async but no op reads its results: it would never complete";
  return success();
}

LogicalResult AllReduceCoalescedOp::verifyWithAxisSize(int64_t n) {
  if (failed(verifyCoalescedCounts(*this)))
    return failure();
  if (getAsync() && getKind() != ReductionKind::sum)
    return emitOpError() << "is async, which reduces by a sum only, got "
                         << stringifyReductionKind(getKind());
  if (getAsync() && failed(verifyAsync(*this)))
    return failure();
  CollectiveChecker c{*this, getAxis(), n};
  for (auto [in, out] : llvm::zip(getInputs(), getResults())) {
    auto ti = c.type(in), to = c.type(out);
    if (failed(c.scaled(ti, to, {})) ||
        failed(
            c.transition(ti, to, Sharding::partial(), Sharding::replicated())))
      return failure();
  }
  return success();
}

/// Whether every operand of `op` is a bf16 tensor.
static bool allBf16(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    return cast<RankedTensorType>(t).getElementType().isBF16();
  });
}

bool AllReduceCoalescedOp::reducesNativelyInBf16() {
  return getKind() == ReductionKind::sum && allBf16(*this);
}

bool ReduceScatterCoalescedOp::reducesNativelyInBf16() {
  return allBf16(*this);
}

LogicalResult ReduceScatterCoalescedOp::verifyWithAxisSize(int64_t n) {
  if (failed(verifyCoalescedCounts(*this)))
    return failure();
  if (getAsync() && failed(verifyAsync(*this)))
    return failure();
  CollectiveChecker c{*this, getAxis(), n};
  for (auto [in, out] : llvm::zip(getInputs(), getResults())) {
    auto ti = c.type(in), to = c.type(out);
    if (failed(c.dimInRange("dim", 0, ti.getRank())) ||
        failed(c.scaled(ti, to, {{0, false}})) ||
        failed(c.transition(ti, to, Sharding::partial(), Sharding::split(0))))
      return failure();
  }
  return success();
}

/// AllGatherParamOp::verifyWithAxisSize, with the symbol tables of the
/// verification sweep (a lookup without them scans the module, once per
/// parameter gathered).
static LogicalResult verifyAllGatherParam(AllGatherParamOp op, MeshOp mesh,
                                          int64_t n,
                                          SymbolTableCollection &symbolTable) {
  if (failed(verifyTensorSize(op, op.getType(), "type")))
    return failure();
  if (!symbolTable.lookupNearestSymbolFrom(op, op.getParamAttr()))
    return op.emitOpError()
           << op.getParamAttr() << " does not name a tfm.param";
  auto t = cast<RankedTensorType>(op.getType());
  if (t.getRank() < 1 || t.getDimSize(0) % n != 0)
    return op.emitOpError() << "the first dimension of " << t
                            << " is not divisible by the size of axis '"
                            << op.getAxis() << "' (" << n << ")";
  if (std::optional<StringRef> within = op.getWithin()) {
    if (*within == op.getAxis())
      return op.emitOpError() << "gathers over axis '" << op.getAxis()
                              << "' within the blocks of the same axis";
    if (mesh && !mesh.getAxisSize(*within))
      return op.emitOpError()
             << "'within' axis '" << *within << "' is not an axis of mesh @"
             << mesh.getSymName();
  }
  return success();
}

LogicalResult AllGatherParamOp::verifyWithAxisSize(int64_t n) {
  SymbolTableCollection symbolTable;
  auto mesh = symbolTable.lookupNearestSymbolFrom<MeshOp>(*this, getMeshAttr());
  return verifyAllGatherParam(*this, mesh, n, symbolTable);
}

LogicalResult AllToAllOp::verifyWithAxisSize(int64_t n) {
  CollectiveChecker c{*this, getAxis(), n};
  auto in = c.type(getInput()), out = c.type(getResult());
  int64_t split = getSplitDim(), concat = getConcatDim();
  if (failed(c.dimInRange("split", split, in.getRank())) ||
      failed(c.dimInRange("concat", concat, in.getRank())))
    return failure();
  if (split == concat)
    return emitOpError() << "split and concat dimensions must differ, both are "
                         << split;
  if (failed(c.scaled(in, out, {{split, false}, {concat, true}})))
    return failure();
  return c.transition(in, out, Sharding::split(concat), Sharding::split(split));
}

LogicalResult LocalSliceOp::verifyWithAxisSize(int64_t n) {
  return verifyOneDim(*this, getInput(), getResult(), getAxis(), n, getDim(),
                      /*gathers=*/false, Sharding::replicated(),
                      splitSide(getResult(), getAxis(), getDim()));
}

static LogicalResult verifyPeerOffset(Operation *op, int64_t offset,
                                      StringRef axis, int64_t n) {
  if (offset == 0 || offset <= -n || offset >= n)
    return op->emitOpError()
           << "offset must be non-zero and within (-" << n << ", " << n
           << ") for axis '" << axis << "', got " << offset;
  return success();
}

LogicalResult SendOp::verifyWithAxisSize(int64_t n) {
  return verifyPeerOffset(*this, getOffset(), getAxis(), n);
}

LogicalResult RecvOp::verifyWithAxisSize(int64_t n) {
  return verifyPeerOffset(*this, getOffset(), getAxis(), n);
}

/// The shape of `in` all-gathered along `d` over `n` ranks (a fused op's
/// gathered input), or an error at `op` when it overflows int64 or is too
/// large a tensor.
static FailureOr<SmallVector<int64_t>> gatheredShape(Operation *op,
                                                     StringRef axis,
                                                     RankedTensorType in,
                                                     int64_t d, int64_t n) {
  SmallVector<int64_t> gathered(in.getShape());
  std::optional<int64_t> rows = llvm::checkedMul<int64_t>(gathered[d], n);
  if (!rows)
    return op->emitOpError() << "dimension " << d << " (" << gathered[d]
                             << ") times the size of axis '" << axis << "' ("
                             << n << ") overflows int64";
  gathered[d] = *rows;
  if (failed(verifyTensorSize(
          op, RankedTensorType::get(gathered, in.getElementType()),
          "the gathered input")))
    return failure();
  return gathered;
}

/// The checks of a fused all-gather + GEMM `op` (dist.all_gather_matmul,
/// dist.all_gather_matmul_gelu) whose GEMM writes `result` (named `name`),
/// on an axis of `n` ranks.
template <typename OpT>
static LogicalResult verifyGatherGemm(OpT op, Value result, StringRef name,
                                      int64_t n) {
  CollectiveChecker c{op, op.getAxis(), n};
  auto in = c.type(op.getInput()), out = c.type(result);
  int64_t d = op.getDim();
  if (failed(c.dimInRange("dim", d, in.getRank() - 1)) ||
      failed(c.chunksDivide(op.getChunks(), in.getDimSize(d),
                            "input's gathered dimension")))
    return failure();
  FailureOr<SmallVector<int64_t>> gatheredOr =
      gatheredShape(op, op.getAxis(), in, d, n);
  if (failed(gatheredOr))
    return failure();
  SmallVector<int64_t> gathered = std::move(*gatheredOr);
  if (failed(c.gemmFloat(op.getInput(), "input")) ||
      failed(c.gemmFloat(result, name)))
    return failure();
  auto shape = c.linearShape(gathered, op.getWeight(), op.getBias(),
                             op.getWeightLayout());
  if (failed(shape))
    return failure();
  if (out.getShape() != ArrayRef<int64_t>(*shape)) {
    auto diag = op.emitOpError() << name << " must have shape [";
    llvm::interleaveComma(*shape, diag);
    return diag << "], got " << out;
  }
  LayoutAttr lin = LayoutAttr::fromType(in), lout = LayoutAttr::fromType(out);
  if (lin && lin.getSharding(op.getAxis()) != Sharding::split(d))
    return op.emitOpError() << "input must be S(" << d << ") on axis '"
                            << op.getAxis() << "', its layout is " << lin;
  if (lout) {
    Sharding s = lout.getSharding(op.getAxis());
    if (s.isPartial() || s == Sharding::split(d))
      return op.emitOpError()
             << name << " must not be " << s.str() << " on axis '"
             << op.getAxis() << "' after the gather";
  }
  return success();
}

LogicalResult AllGatherMatmulOp::verifyWithAxisSize(int64_t n) {
  return verifyGatherGemm(*this, getResult(), "result", n);
}

LogicalResult AllGatherMatmulGeluOp::verifyWithAxisSize(int64_t n) {
  if (getResult().getType() != getPre().getType())
    return emitOpError() << "result must have the type of pre ("
                         << getPre().getType() << "), got "
                         << getResult().getType();
  return verifyGatherGemm(*this, getPre(), "pre", n);
}

// The partial sums are reduced, and the weight gradients accumulated, in
// f32: the kernels write those results in f32, never rounded per chunk.
bool MatmulReduceScatterOp::writesStoragePrecision(unsigned) { return false; }
bool AllGatherMatmulGradWeightOp::writesStoragePrecision(unsigned) {
  return false;
}

LogicalResult MatmulReduceScatterOp::verifyWithAxisSize(int64_t n) {
  CollectiveChecker c{*this, getAxis(), n};
  auto in = c.type(getInput()), out = c.type(getResult());
  int64_t d = getDim();
  if (failed(c.dimInRange("dim", d, in.getRank() - 1)))
    return failure();
  if (failed(c.gemmFloat(getInput(), "input")) ||
      failed(c.gemmFloat(getResult(), "result")))
    return failure();
  auto shape =
      c.linearShape(in.getShape(), getWeight(), getBias(), getWeightLayout());
  if (failed(shape))
    return failure();
  auto full = RankedTensorType::get(*shape, out.getElementType());
  if (failed(verifyTensorSize(*this, full, "the whole GEMM output")))
    return failure();
  if (failed(c.scaled(full, out, {{d, false}})) ||
      failed(c.chunksDivide(getChunks(), out.getDimSize(d),
                            "result's scattered dimension")))
    return failure();
  LayoutAttr lout = LayoutAttr::fromType(out);
  if (lout && lout.getSharding(getAxis()) != Sharding::split(d))
    return emitOpError() << "result must be S(" << d << ") on axis '"
                         << getAxis() << "', its layout is " << lout;
  return success();
}

LogicalResult AllGatherMatmulGradWeightOp::verifyWithAxisSize(int64_t n) {
  CollectiveChecker c{*this, getAxis(), n};
  auto in = c.type(getInput());
  int64_t d = getDim();
  if (failed(c.dimInRange("dim", d, in.getRank() - 1)) ||
      failed(c.chunksDivide(getChunks(), in.getDimSize(d),
                            "input's gathered dimension")))
    return failure();
  if (getDys().empty() || getDys().size() != getNumResults())
    return emitOpError() << "needs at least one dy and one result per dy, got "
                         << getDys().size() << " and " << getNumResults();
  FailureOr<SmallVector<int64_t>> gatheredOr =
      gatheredShape(*this, getAxis(), in, d, n);
  if (failed(gatheredOr))
    return failure();
  SmallVector<int64_t> gathered = std::move(*gatheredOr);
  bool outIn = getWeightLayout() == seqpar::WeightLayout::out_in;
  int64_t features = in.getShape().back();
  if (failed(c.gemmFloat(getInput(), "input")))
    return failure();
  Type dyType = c.type(getDys().front()).getElementType();
  LayoutAttr lin = LayoutAttr::fromType(in);
  if (lin && lin.getSharding(getAxis()) != Sharding::split(d))
    return emitOpError() << "input must be S(" << d << ") on axis '"
                         << getAxis() << "', its layout is " << lin;
  for (auto [j, dy, dw] : llvm::enumerate(getDys(), getDweights())) {
    auto tdy = c.type(dy), tdw = c.type(dw);
    if (tdy.getRank() != in.getRank() ||
        tdy.getShape().drop_back() != ArrayRef(gathered).drop_back()) {
      auto diag = emitOpError() << "dy " << j << " must have shape [";
      llvm::interleaveComma(ArrayRef(gathered).drop_back(), diag);
      return diag << ", out] (the gathered input's but for its last "
                     "dimension), got "
                  << tdy;
    }
    if (failed(c.gemmFloat(dy, "dy " + Twine(j))) ||
        failed(c.gemmFloat(dw, "result " + Twine(j))))
      return failure();
    if (tdy.getElementType() != dyType)
      return emitOpError() << "dy " << j << " element type "
                           << tdy.getElementType() << " differs from dy 0's "
                           << dyType;
    int64_t out = tdy.getShape().back();
    SmallVector<int64_t> want = outIn ? SmallVector<int64_t>{out, features}
                                      : SmallVector<int64_t>{features, out};
    if (tdw.getShape() != ArrayRef<int64_t>(want))
      return emitOpError() << "result " << j << " must have shape [" << want[0]
                           << ", " << want[1] << "], got " << tdw;
    if (LayoutAttr l = LayoutAttr::fromType(tdy)) {
      Sharding s = l.getSharding(getAxis());
      if (s.isPartial() || s == Sharding::split(d))
        return emitOpError()
               << "dy " << j << " must not be " << s.str() << " on axis '"
               << getAxis() << "': it has the gathered rows";
    }
  }
  return success();
}

#define GET_OP_CLASSES
#include "seqpar/Dialect/Dist/IR/DistOps.cpp.inc"

#include "seqpar/Dialect/Common/SeqparInterfaces.cpp.inc"

//===- DistAttrs.cpp - #dist.layout ---------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace seqpar::dist;

static Sharding decode(int64_t v, int64_t blocks) {
  if (v == LayoutAttr::kPartial)
    return Sharding::partial();
  return blocks == LayoutAttr::kZigzag ? Sharding::zigzagSplit(v)
                                       : Sharding::split(v, blocks);
}

static int64_t encode(Sharding s) {
  return s.isPartial() ? LayoutAttr::kPartial : s.dim;
}

LayoutAttr LayoutAttr::get(MLIRContext *ctx, FlatSymbolRefAttr mesh,
                           ArrayRef<std::pair<StringRef, Sharding>> entries) {
  SmallVector<std::pair<StringRef, Sharding>> sorted;
  for (auto &e : entries)
    if (!e.second.isReplicated())
      sorted.push_back(e);
  llvm::sort(sorted, [](auto &a, auto &b) { return a.first < b.first; });
  SmallVector<StringAttr> axes;
  SmallVector<int64_t> shardings, blocks;
  for (auto &[axis, s] : sorted) {
    axes.push_back(StringAttr::get(ctx, axis));
    shardings.push_back(encode(s));
    blocks.push_back(s.isZigzag() ? kZigzag : s.isSplit() ? s.blocks : 1);
  }
  assert((mesh || axes.empty()) && "a layout with entries names its mesh");
  return get(ctx, mesh, axes, shardings, blocks);
}

LayoutAttr LayoutAttr::fromType(Type type) {
  auto ranked = llvm::dyn_cast<RankedTensorType>(type);
  return ranked ? llvm::dyn_cast_or_null<LayoutAttr>(ranked.getEncoding())
                : LayoutAttr();
}

LayoutAttr LayoutAttr::ofType(Type type, FlatSymbolRefAttr mesh) {
  if (LayoutAttr layout = fromType(type))
    return layout;
  return get(type.getContext(), mesh, {}, {}, {});
}

Sharding LayoutAttr::getSharding(size_t i) const {
  return decode(getShardings()[i], getBlocks()[i]);
}

Sharding LayoutAttr::getSharding(StringRef axis) const {
  for (auto [i, name] : llvm::enumerate(getAxes()))
    if (name.getValue() == axis)
      return getSharding(i);
  return Sharding::replicated();
}

LayoutAttr LayoutAttr::with(StringRef axis, Sharding sharding) const {
  return with(getMesh(), axis, sharding);
}

LayoutAttr LayoutAttr::with(FlatSymbolRefAttr mesh, StringRef axis,
                            Sharding sharding) const {
  assert((!getMesh() || getMesh() == mesh) && "a layout keeps its mesh");
  SmallVector<std::pair<StringRef, Sharding>> entries;
  for (auto [i, name] : llvm::enumerate(getAxes()))
    if (name.getValue() != axis)
      entries.push_back({name.getValue(), getSharding(i)});
  entries.push_back({axis, sharding});
  return get(getContext(), mesh, entries);
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 FlatSymbolRefAttr mesh,
                                 ArrayRef<StringAttr> axes,
                                 ArrayRef<int64_t> shardings,
                                 ArrayRef<int64_t> blocks) {
  if (axes.size() != shardings.size() || axes.size() != blocks.size())
    return emitError() << "layout has " << axes.size() << " axes but "
                       << shardings.size() << " shardings and " << blocks.size()
                       << " block counts";
  if (!mesh && !axes.empty())
    return emitError() << "a layout with entries must name its mesh";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (!axis || axis.getValue().empty())
      return emitError() << "layout axis names must be non-empty";
    if (i > 0 && axes[i - 1].getValue() >= axis.getValue())
      return emitError() << "layout axes must be unique and sorted by name, "
                            "got '"
                         << axes[i - 1].getValue() << "' before '"
                         << axis.getValue() << "'";
    if (shardings[i] < kPartial)
      return emitError() << "layout of axis '" << axis.getValue()
                         << "' has an invalid split dimension " << shardings[i];
    if (blocks[i] < 1 && blocks[i] != kZigzag)
      return emitError() << "layout of axis '" << axis.getValue()
                         << "' has an invalid block count " << blocks[i];
    if (blocks[i] == kZigzag && shardings[i] == kPartial)
      return emitError() << "layout of axis '" << axis.getValue()
                         << "' is partial and zigzag";
    // A zigzag split is its dimension's outermost: one per dimension.
    for (size_t j = 0; j < i; ++j)
      if (blocks[i] == kZigzag && blocks[j] == kZigzag &&
          shardings[i] == shardings[j])
        return emitError() << "axes '" << axes[j].getValue() << "' and '"
                           << axis.getValue() << "' both split dimension "
                           << shardings[i]
                           << " in zigzag (one zigzag split per dimension)";
  }
  return success();
}

/// `<` (`@`mesh (`,` entry)*)? `>`, an entry being
/// axis `=` (R | P | S `(` dim (`,` (`blocks` `=` k | `zigzag`))? `)`).
Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<std::pair<std::string, Sharding>> entries;
  FlatSymbolRefAttr mesh;
  llvm::SMLoc loc = parser.getCurrentLocation();
  auto parseEntry = [&]() -> ParseResult {
    std::string axis;
    llvm::SMLoc axisLoc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&axis) || parser.parseEqual())
      return failure();
    if (axis.empty())
      return parser.emitError(axisLoc) << "layout axis names must be non-empty";
    StringRef kind;
    llvm::SMLoc kindLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&kind))
      return failure();
    Sharding s;
    if (kind == "R") {
      s = Sharding::replicated();
    } else if (kind == "P") {
      s = Sharding::partial();
    } else if (kind == "S") {
      int64_t dim, blocks = 1;
      bool zigzag = false;
      if (parser.parseLParen() || parser.parseInteger(dim))
        return failure();
      if (succeeded(parser.parseOptionalComma())) {
        if (succeeded(parser.parseOptionalKeyword("zigzag")))
          zigzag = true;
        else if (parser.parseKeyword("blocks") || parser.parseEqual() ||
                 parser.parseInteger(blocks))
          return failure();
      }
      if (parser.parseRParen())
        return failure();
      if (dim < 0)
        return parser.emitError(kindLoc)
               << "split dimension of axis '" << axis << "' must be >= 0";
      if (blocks < 1)
        return parser.emitError(kindLoc)
               << "block count of axis '" << axis << "' must be >= 1";
      s = zigzag ? Sharding::zigzagSplit(dim) : Sharding::split(dim, blocks);
    } else {
      return parser.emitError(kindLoc) << "expected R, P or S(dim) for axis '"
                                       << axis << "', got '" << kind << "'";
    }
    for (auto &e : entries)
      if (e.first == axis)
        return parser.emitError(loc) << "axis '" << axis << "' given twice";
    entries.push_back({axis, s});
    return success();
  };
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    llvm::SMLoc meshLoc = parser.getCurrentLocation();
    StringAttr meshName;
    if (failed(parser.parseOptionalSymbolName(meshName)))
      return parser.emitError(meshLoc)
                 << "expected the layout's mesh (@name) before its entries: "
                    "#dist.layout<@mesh, axis = S(d) | P | R, ...>",
             Attribute();
    mesh = FlatSymbolRefAttr::get(meshName);
    while (succeeded(parser.parseOptionalComma()))
      if (failed(parseEntry()))
        return {};
    if (parser.parseGreater())
      return {};
  }
  SmallVector<std::pair<StringRef, Sharding>> refs;
  for (auto &e : entries)
    refs.push_back({e.first, e.second});
  LayoutAttr layout = LayoutAttr::get(parser.getContext(), mesh, refs);
  if (failed(verify([&] { return parser.emitError(loc); }, layout.getMesh(),
                    layout.getAxes(), layout.getShardings(),
                    layout.getBlocks())))
    return {};
  return layout;
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << '<';
  if (getMesh())
    printer.printSymbolName(getMesh().getValue());
  for (size_t i = 0, e = getAxes().size(); i < e; ++i) {
    printer << ", ";
    printer.printKeywordOrString(getAxes()[i].getValue());
    printer << " = " << getSharding(i).str();
  }
  printer << '>';
}

//===- RuntimeLoweringInterface.td - op -> libsprt call ----*- tablegen -*-===//

#ifndef SEQPAR_CONVERSION_RUNTIMELOWERINGINTERFACE_TD
#define SEQPAR_CONVERSION_RUNTIMELOWERINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def RuntimeLoweringOpInterface : OpInterface<"RuntimeLoweringOpInterface"> {
  let cppNamespace = "::seqpar";
  let description = [{
    How convert-sp-to-runtime lowers one op of a partitioned step: the calls
    into libsprt (runtime/include/sprt/{kernels,runtime}.h) that compute its
    results. The pass owns everything that is not one op's business (the
    buffer of every tensor, the parameter and optimizer-state tables, the
    mesh axes) and hands it to the implementation through a
    `RuntimeEmitter` (seqpar/Conversion/RuntimeLoweringInterface.h).

    The tfm and dist ops implement it as external models attached by the
    conversion library (`seqpar::registerRuntimeLoweringModels`, called from
    `seqpar::registerAllDialects`), so neither dialect depends on the runtime
    ABI. An op that reaches the pass without it is an error at the op.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits the runtime calls that compute this op's results from its
        operands' buffers, through `emitter`. Fails (with an error at the op)
        for a form the runtime does not take.
      }],
      "::mlir::LogicalResult", "lowerToRuntime",
      (ins "::seqpar::RuntimeEmitter &":$emitter)>,
  ];
}

#endif // SEQPAR_CONVERSION_RUNTIMELOWERINGINTERFACE_TD

// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Round trip of dist.all_reduce_coalesced (each operand P -> R), with and
// without layouts; the second RUN line goes through the generic form. The
// invalid cases are in all-reduce-coalesced-invalid.mlir.

// CHECK: dist.mesh @mesh ["dp" = 2, "tp" = 4]{{$}}
dist.mesh @mesh ["dp" = 2, "tp" = 4]

// CHECK-LABEL: func.func @no_layouts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2xf32>, %[[Y:[a-z0-9]+]]: tensor<32xbf16>, %[[I:[a-z0-9]+]]: tensor<4xi64>)
func.func @no_layouts(%x: tensor<8x2xf32>, %y: tensor<32xbf16>,
                      %i: tensor<4xi64>)
    -> (tensor<8x2xf32>, tensor<32xbf16>, tensor<4xi64>, tensor<8x2xf32>) {
  // Operands of different shapes and element types in one collective.
  // CHECK: %[[A:.*]]:3 = dist.all_reduce_coalesced %[[X]], %[[Y]], %[[I]] on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<32xbf16>, tensor<4xi64>) -> (tensor<8x2xf32>, tensor<32xbf16>, tensor<4xi64>)
  %0:3 = dist.all_reduce_coalesced %x, %y, %i on @mesh["dp"] sum
      : (tensor<8x2xf32>, tensor<32xbf16>, tensor<4xi64>)
      -> (tensor<8x2xf32>, tensor<32xbf16>, tensor<4xi64>)
  // One operand; the other reduction kinds.
  // CHECK: %[[B:.*]] = dist.all_reduce_coalesced %[[X]] on @mesh["tp"] mean : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %1 = dist.all_reduce_coalesced %x on @mesh["tp"] mean
      : (tensor<8x2xf32>) -> tensor<8x2xf32>
  // CHECK: dist.all_reduce_coalesced %[[X]], %[[X]] on @mesh["tp"] max : (tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>)
  %2:2 = dist.all_reduce_coalesced %x, %x on @mesh["tp"] max
      : (tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>)
  // CHECK: dist.all_reduce_coalesced %[[I]] on @mesh["dp"] min : (tensor<4xi64>) -> tensor<4xi64>
  %3 = dist.all_reduce_coalesced %i on @mesh["dp"] min
      : (tensor<4xi64>) -> tensor<4xi64>
  // CHECK: return %[[A]]#0, %[[A]]#1, %[[A]]#2, %[[B]]
  return %0#0, %0#1, %0#2, %1
      : tensor<8x2xf32>, tensor<32xbf16>, tensor<4xi64>, tensor<8x2xf32>
}

// A gradient bucket as sp-sync-grads builds it: every operand is P on the
// axis, the layouts on the other axes go through unchanged.
// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[W:[a-z0-9]+]]: tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>, %[[B:[a-z0-9]+]]: tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>, %[[N:[a-z0-9]+]]: tensor<32xf32, #dist.layout<@mesh, dp = P>>)
func.func @bucket(%w: tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>,
                  %b: tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>,
                  %n: tensor<32xf32, #dist.layout<@mesh, dp = P>>)
    -> (tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>,
        tensor<32xf32, #dist.layout<@mesh, tp = P>>, tensor<32xf32>,
        tensor<32xf32, #dist.layout<@mesh>>) {
  // CHECK: %[[DP:.*]]:3 = dist.all_reduce_coalesced %[[W]], %[[B]], %[[N]] on @mesh["dp"] sum : (tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>, tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>, tensor<32xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32, #dist.layout<@mesh, tp = P>>, tensor<32xf32>)
  %0:3 = dist.all_reduce_coalesced %w, %b, %n on @mesh["dp"] sum
      : (tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>,
         tensor<32xf32, #dist.layout<@mesh, dp = P, tp = P>>,
         tensor<32xf32, #dist.layout<@mesh, dp = P>>)
      -> (tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>,
          tensor<32xf32, #dist.layout<@mesh, tp = P>>, tensor<32xf32>)
  // Then over tp; the empty layout (replicated everywhere) stays printed.
  // CHECK: %[[TP:.*]] = dist.all_reduce_coalesced %[[DP]]#1 on @mesh["tp"] sum : (tensor<32xf32, #dist.layout<@mesh, tp = P>>) -> tensor<32xf32, #dist.layout<@mesh>>
  %1 = dist.all_reduce_coalesced %0#1 on @mesh["tp"] sum
      : (tensor<32xf32, #dist.layout<@mesh, tp = P>>) -> tensor<32xf32, #dist.layout<@mesh>>
  // CHECK: return %[[DP]]#0, %[[DP]]#1, %[[DP]]#2, %[[TP]]
  return %0#0, %0#1, %0#2, %1
      : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>,
        tensor<32xf32, #dist.layout<@mesh, tp = P>>, tensor<32xf32>,
        tensor<32xf32, #dist.layout<@mesh>>
}

// `async` (sp-overlap-grad-reductions) round-trips on both coalesced ops.
// CHECK-LABEL: func.func @async
// CHECK: dist.all_reduce_coalesced %{{.*}} on @mesh["dp"] sum async : (tensor<8x2xf32>) -> tensor<8x2xf32>
// CHECK: dist.reduce_scatter_coalesced %{{.*}} on @mesh["dp"] async : (tensor<8x2xf32>) -> tensor<4x2xf32>
func.func @async(%x: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<4x2xf32>) {
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum async : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %1 = dist.reduce_scatter_coalesced %x on @mesh["dp"] async : (tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0, %1 : tensor<8x2xf32>, tensor<4x2xf32>
}

// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Context parallelism's zigzag split, S(d, zigzag): round trip of the layout
// and of the collectives that move it (all_gather from it, reduce_scatter and
// local_slice to it). A zigzag split is its dimension's outermost: tp may cut
// a cp rank's part further (sequence parallelism inside context
// parallelism).

dist.mesh @mesh ["cp" = 2, "tp" = 2] roles [context, tensor]

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>
// CHECK-SAME: tensor<4x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>>
func.func @layouts(%ids: tensor<8x2xi64, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                   %x: tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0), cp = S(0, zigzag)>>) {
  return
}

// CHECK-LABEL: func.func @collectives
// CHECK: dist.all_gather %{{.*}} on @mesh["cp"] dim 0 : tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(2)>> -> tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK: dist.reduce_scatter %{{.*}} on @mesh["cp"] dim 0 : tensor<16x2x16xf32, #dist.layout<@mesh, cp = P, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(2)>>
// CHECK: dist.local_slice %{{.*}} on @mesh["cp"] dim 0 : tensor<16x2x16xf32> -> tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
// The inner split over tp gathers like any contiguous split.
// CHECK: dist.all_gather %{{.*}} on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>> -> tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
func.func @collectives(%k: tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(2)>>,
                       %dk: tensor<16x2x16xf32, #dist.layout<@mesh, cp = P, tp = S(2)>>,
                       %w: tensor<16x2x16xf32>,
                       %x: tensor<4x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>>) {
  %0 = dist.all_gather %k on @mesh["cp"] dim 0 : tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(2)>> -> tensor<16x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
  %1 = dist.reduce_scatter %dk on @mesh["cp"] dim 0 : tensor<16x2x16xf32, #dist.layout<@mesh, cp = P, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(2)>>
  %2 = dist.local_slice %w on @mesh["cp"] dim 0 : tensor<16x2x16xf32> -> tensor<8x2x16xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
  %3 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag), tp = S(0)>> -> tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>
  return
}

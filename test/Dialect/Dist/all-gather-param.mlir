// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Round trip of dist.all_gather_param, with and without `within` (ZeRO-1
// over the data and context axes: the cp slices of this rank's dp block,
// then the dp blocks).

dist.mesh @mesh ["dp" = 2, "cp" = 2, "tp" = 2] roles [data, context, tensor]
tfm.param @w : tensor<16x4xf32, #dist.layout<@mesh, tp = S(0)>> init ones
tfm.param @b : tensor<8xbf16> init ones
// CHECK-LABEL: func.func @gathers
func.func @gathers() {
  // CHECK-NEXT: dist.all_gather_param @w on @mesh["cp"] within "dp" : tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
  dist.all_gather_param @w on @mesh["cp"] within "dp" : tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
  // CHECK-NEXT: dist.all_gather_param @w on @mesh["dp"] : tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>>
  dist.all_gather_param @w on @mesh["dp"] : tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>>
  // CHECK-NEXT: dist.all_gather_param @b on @mesh["cp"] within "dp" : tensor<4xbf16>
  dist.all_gather_param @b on @mesh["cp"] within "dp" : tensor<4xbf16>
  return
}

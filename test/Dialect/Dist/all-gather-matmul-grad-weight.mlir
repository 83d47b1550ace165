// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Round trip of dist.all_gather_matmul_grad_weight (the weight gradients of
// the GEMMs that read an all_gather), with one and several GEMMs, both
// weight layouts, with and without layouts; the second RUN line goes
// through the generic form. The invalid cases are in
// all-gather-matmul-grad-weight-invalid.mlir.

// CHECK: dist.mesh @mesh ["dp" = 2, "tp" = 4]{{$}}
dist.mesh @mesh ["dp" = 2, "tp" = 4]

// CHECK-LABEL: func.func @no_layouts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x2x8xf32>, %[[DY:[a-z0-9]+]]: tensor<8x2x6xf32>, %[[DZ:[a-z0-9]+]]: tensor<8x2x3xf32>, %[[DW:[a-z0-9]+]]: tensor<2x4x6xf32>)
func.func @no_layouts(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>,
                      %dz: tensor<8x2x3xf32>, %dw: tensor<2x4x6xf32>) {
  // The default out_in layout is not printed; chunks always is.
  // CHECK: dist.all_gather_matmul_grad_weight %[[X]], %[[DY]] on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1
      : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  // CHECK: dist.all_gather_matmul_grad_weight %[[X]], %[[DY]], %[[DZ]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x2x6xf32>, tensor<8x2x3xf32>) -> (tensor<8x6xf32>, tensor<8x3xf32>)
  %1:2 = dist.all_gather_matmul_grad_weight %x, %dy, %dz on @mesh["tp"] dim 0
      chunks 2 weight_layout in_out
      : (tensor<2x2x8xf32>, tensor<8x2x6xf32>, tensor<8x2x3xf32>)
      -> (tensor<8x6xf32>, tensor<8x3xf32>)
  // Along another dimension (the verifier allows it; the fusion and the
  // lowering use dim 0).
  // CHECK: dist.all_gather_matmul_grad_weight %[[X]], %[[DW]] on @mesh["dp"] dim 1 chunks 2 : (tensor<2x2x8xf32>, tensor<2x4x6xf32>) -> tensor<6x8xf32>
  %2 = dist.all_gather_matmul_grad_weight %x, %dw on @mesh["dp"] dim 1 chunks 2
      : (tensor<2x2x8xf32>, tensor<2x4x6xf32>) -> tensor<6x8xf32>
  return
}

// The column GEMM's backward: the saved input is sequence-sharded, every dy
// holds this rank's output features of the whole sequence, every weight
// gradient this rank's rows (columns for in_out) of its weight.
// CHECK-LABEL: func.func @layouts
func.func @layouts(%x: tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
                   %dq: tensor<8x2x4xbf16, #dist.layout<@mesh, tp = S(2)>>,
                   %dk: tensor<8x2x2xbf16, #dist.layout<@mesh, tp = S(2)>>)
    -> (tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
        tensor<2x8xbf16, #dist.layout<@mesh, tp = S(0)>>) {
  // CHECK: %[[R:.*]]:2 = dist.all_gather_matmul_grad_weight %{{.*}}, %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x2x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x2xbf16, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<2x8xbf16, #dist.layout<@mesh, tp = S(0)>>)
  %0:2 = dist.all_gather_matmul_grad_weight %x, %dq, %dk on @mesh["tp"] dim 0
      chunks 2
      : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
         tensor<8x2x4xbf16, #dist.layout<@mesh, tp = S(2)>>,
         tensor<8x2x2xbf16, #dist.layout<@mesh, tp = S(2)>>)
      -> (tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
          tensor<2x8xbf16, #dist.layout<@mesh, tp = S(0)>>)
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %0#0, %0#1 : tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
                      tensor<2x8xbf16, #dist.layout<@mesh, tp = S(0)>>
}

// A bf16 input gathered in bf16 and widened for f32 GEMMs (f32 dys and
// weight gradients).
// CHECK-LABEL: func.func @widened
func.func @widened(%x: tensor<2x2x8xbf16>, %dy: tensor<8x2x6xf32>) -> tensor<6x8xf32> {
  // CHECK: dist.all_gather_matmul_grad_weight %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 : (tensor<2x2x8xbf16>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 2
      : (tensor<2x2x8xbf16>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

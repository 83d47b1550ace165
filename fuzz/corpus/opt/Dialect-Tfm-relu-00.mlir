// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// tfm.relu (max(x, 0)) and its backward tfm.relu_grad (dy where x > 0, else
// 0): each op is parsed, printed, parsed again and the custom form is checked;
// the second RUN line goes through the generic form.

// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x2x16xf32>, %[[H:[a-z0-9_]+]]: tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>)
func.func @relu(%x: tensor<8x2x16xf32>, %h: tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>)
    -> (tensor<8x2x16xf32>, tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>) {
  // CHECK: %[[A:.*]] = tfm.relu %[[X]] : tensor<8x2x16xf32>
  %0 = tfm.relu %x : tensor<8x2x16xf32>
  // CHECK: %[[B:.*]] = tfm.relu %[[H]] : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  %1 = tfm.relu %h : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<8x2x16xf32>, tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(2)>>
}

// CHECK-LABEL: func.func @relu_grad
// CHECK-SAME: (%[[DY:[a-z0-9_]+]]: tensor<8x2x88xf32>, %[[X:[a-z0-9_]+]]: tensor<8x2x88xf32>)
func.func @relu_grad(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x88xf32>)
    -> tensor<8x2x88xf32> {
  // CHECK: %[[A:.*]] = tfm.relu_grad %[[DY]], %[[X]] : tensor<8x2x88xf32>
  %0 = tfm.relu_grad %dy, %x : tensor<8x2x88xf32>
  // CHECK: return %[[A]]
  return %0 : tensor<8x2x88xf32>
}

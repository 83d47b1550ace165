// RUN: sp-opt %s -sp-partition="tp=4 dp=2" | FileCheck %s

// Grouped-query attention with more tp ranks than kv heads (4 heads, 2 kv
// heads, tp = 4) under data parallelism: k and v are computed whole over tp
// but split along the batch over dp, and their repeated heads keep that dp
// layout (each replica repeats its own batch rows) before each rank slices
// its one kv head. The loss is returned, the replicas' shares (sums over
// their tokens divided by the global label count) summed over dp.
// CHECK-LABEL: func.func @gqa_loss
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, %{{[a-z0-9]+}}: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32>
// CHECK: %[[K:[0-9]+]] = tfm.linear %[[X]], %{{[0-9]+}} : (tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
// CHECK: %[[V:[0-9]+]] = tfm.linear %[[X]], %{{[0-9]+}} : (tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
// CHECK-NEXT: %[[KR:[0-9]+]] = tfm.repeat_heads %[[K]] heads 2 head_dim 2 factor 2 : tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
// CHECK-NEXT: %[[KS:[0-9]+]] = dist.local_slice %[[KR]] on @mesh["tp"] dim 2 : tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<4x1x2xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
// CHECK-NEXT: %[[VR:[0-9]+]] = tfm.repeat_heads %[[V]] heads 2 head_dim 2 factor 2 : tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<4x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
// CHECK-NEXT: %[[VS:[0-9]+]] = dist.local_slice %[[VR]] on @mesh["tp"] dim 2
// CHECK-NEXT: tfm.attention %{{[0-9]+}}, %[[KS]], %[[VS]] heads 1 kv_heads 1 head_dim 2 {causal}
// CHECK: tfm.cross_entropy_from_stats
// CHECK-NEXT: %[[L:[0-9]+]] = dist.all_reduce %{{[0-9]+}} on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// CHECK-NEXT: return %[[L]] : tensor<f32>
tfm.param @q.weight : tensor<8x8xf32> init normal(2.000000e-02)
tfm.param @k.weight : tensor<4x8xf32> init normal(2.000000e-02)
tfm.param @v.weight : tensor<4x8xf32> init normal(2.000000e-02)
func.func @gqa_loss(%x: tensor<4x2x8xf32>, %labels: tensor<4x2xi64>) -> tensor<f32> {
  %wq = tfm.get_param @q.weight : tensor<8x8xf32>
  %q = tfm.linear %x, %wq : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %wk = tfm.get_param @k.weight : tensor<4x8xf32>
  %k = tfm.linear %x, %wk : (tensor<4x2x8xf32>, tensor<4x8xf32>) -> tensor<4x2x4xf32>
  %wv = tfm.get_param @v.weight : tensor<4x8xf32>
  %v = tfm.linear %x, %wv : (tensor<4x2x8xf32>, tensor<4x8xf32>) -> tensor<4x2x4xf32>
  %a = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 2 {causal} : tensor<4x2x8xf32>, tensor<4x2x4xf32>, tensor<4x2x4xf32> -> tensor<4x2x8xf32>
  %l = tfm.cross_entropy %a, %labels ignore_index -100 : (tensor<4x2x8xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

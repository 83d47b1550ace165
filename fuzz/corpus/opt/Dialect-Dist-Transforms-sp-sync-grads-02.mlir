
// A tie group (one gradient returned for two parameters, GPT-2's wte and
// LM head) is reduced once, and both results take the reduced value.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DT:[a-z0-9]+]]: tensor<16x8xf32, #dist.layout<@mesh, dp = P>>)
// CHECK-NEXT: %[[R:[0-9]+]] = dist.all_reduce_coalesced %[[DT]] on @mesh["dp"] sum : (tensor<16x8xf32, #dist.layout<@mesh, dp = P>>) -> tensor<16x8xf32>
// CHECK-NEXT: return %[[LOSS]], %[[R]], %[[R]] : tensor<f32>, tensor<16x8xf32>, tensor<16x8xf32>
// BUCKETS-LABEL: func.func @train_step
// BUCKETS-NEXT: %[[R:[0-9]+]] = dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["dp"] sum
// BUCKETS-NEXT: return %{{[a-z0-9]+}}, %[[R]], %[[R]] :
// ZERO-LABEL: func.func @train_step
// ZERO-SAME: attributes {tfm.train_step, tfm.zero}
// ZERO-NEXT: %[[RS:[0-9]+]] = dist.reduce_scatter_coalesced %{{[a-z0-9]+}} on @mesh["dp"] : (tensor<16x8xf32, #dist.layout<@mesh, dp = P>>) -> tensor<8x8xf32, #dist.layout<@mesh, dp = S(0)>>
// ZERO-NEXT: return %{{[a-z0-9]+}}, %[[RS]], %[[RS]] :
dist.mesh @mesh ["dp" = 2, "tp" = 1] roles [data, tensor]
tfm.param @wte : tensor<16x8xf32> init ones
tfm.param @head : tensor<16x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dt: tensor<16x8xf32, #dist.layout<@mesh, dp = P>>)
    -> (tensor<f32>, tensor<16x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @wte}, tensor<16x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @head}) attributes {tfm.train_step} {
  return %loss, %dt, %dt : tensor<f32>, tensor<16x8xf32, #dist.layout<@mesh, dp = P>>, tensor<16x8xf32, #dist.layout<@mesh, dp = P>>
}

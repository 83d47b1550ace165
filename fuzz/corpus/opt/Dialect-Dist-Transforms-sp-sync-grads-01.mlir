
// dp=2, tp=2: the gradient partial on both axes is reduced over tp first;
// then every gradient is reduced over dp in one coalesced collective; the
// loss (no tfm.grad_of) is not touched.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DA:[a-z0-9]+]]: tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, %[[DB:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, %[[DC:[a-z0-9]+]]: tensor<3xf32, #dist.layout<@mesh, dp = P>>)
// CHECK-SAME: -> (tensor<f32>, tensor<8xf32> {tfm.grad_of = @a}, tensor<4x8xf32> {tfm.grad_of = @b}, tensor<3xf32> {tfm.grad_of = @c})
// CHECK-NEXT: %[[TP:[0-9]+]] = dist.all_reduce_coalesced %[[DA]] on @mesh["tp"] sum : (tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>) -> tensor<8xf32, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[DP:[0-9]+]]:3 = dist.all_reduce_coalesced %[[TP]], %[[DB]], %[[DC]] on @mesh["dp"] sum : (tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, tensor<3xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<3xf32>)
// CHECK-NEXT: return %[[LOSS]], %[[DP]]#0, %[[DP]]#1, %[[DP]]#2 : tensor<f32>, tensor<8xf32>, tensor<4x8xf32>, tensor<3xf32>
// Buckets of at most 160 bytes: a (32 bytes) and b (128) share one, c (12)
// starts the next.
// BUCKETS-LABEL: func.func @train_step
// BUCKETS-NEXT: %[[TP:[0-9]+]] = dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["tp"] sum
// BUCKETS-NEXT: %[[B0:[0-9]+]]:2 = dist.all_reduce_coalesced %[[TP]], %{{[a-z0-9]+}} on @mesh["dp"] sum : (tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<4x8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32>, tensor<4x8xf32>)
// BUCKETS-NEXT: %[[B1:[0-9]+]] = dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["dp"] sum : (tensor<3xf32, #dist.layout<@mesh, dp = P>>) -> tensor<3xf32>
// BUCKETS-NEXT: return %{{[a-z0-9]+}}, %[[B0]]#0, %[[B0]]#1, %[[B1]] :
// A distributed optimizer: the dp reduction of a and b is a reduce-scatter
// along dimension 0 (each replica keeps one slice), c (3 rows, not
// divisible by dp) is all-reduced whole, and the step is marked tfm.zero.
// ZERO-LABEL: func.func @train_step
// ZERO-SAME: -> (tensor<f32>, tensor<4xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @a}, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @b}, tensor<3xf32> {tfm.grad_of = @c}) attributes {tfm.train_step, tfm.zero}
// ZERO-NEXT: %[[TP:[0-9]+]] = dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["tp"] sum
// ZERO-NEXT: %[[RS:[0-9]+]]:2 = dist.reduce_scatter_coalesced %[[TP]], %{{[a-z0-9]+}} on @mesh["dp"] : (tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<4x8xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<4xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>)
// ZERO-NEXT: %[[AR:[0-9]+]] = dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["dp"] sum : (tensor<3xf32, #dist.layout<@mesh, dp = P>>) -> tensor<3xf32>
// ZERO-NEXT: return %{{[a-z0-9]+}}, %[[RS]]#0, %[[RS]]#1, %[[AR]] :
dist.mesh @mesh ["dp" = 2, "tp" = 2] roles [data, tensor]
tfm.param @a : tensor<8xf32> init ones
tfm.param @b : tensor<4x8xf32> init ones
tfm.param @c : tensor<3xf32> init ones
func.func @train_step(%loss: tensor<f32>, %da: tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, %db: tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, %dc: tensor<3xf32, #dist.layout<@mesh, dp = P>>)
    -> (tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>> {tfm.grad_of = @a}, tensor<4x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @b}, tensor<3xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @c}) attributes {tfm.train_step} {
  return %loss, %da, %db, %dc : tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, tensor<3xf32, #dist.layout<@mesh, dp = P>>
}


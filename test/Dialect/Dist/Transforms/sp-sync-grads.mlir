// RUN: sp-opt %s -split-input-file -sp-sync-grads | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-sync-grads="bucket-bytes=160" | FileCheck %s --check-prefix=BUCKETS
// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=1" | FileCheck %s --check-prefix=ZERO
// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=1" -verify-diagnostics -o /dev/null

// sp-sync-grads on hand-written train steps: every result marked
// tfm.grad_of that is partial on a mesh axis is reduced over it, coalesced
// in buckets (bucket-bytes), model-parallel axes before dp; with zero=1 the
// dp reduction is a reduce-scatter along dimension 0 where that divides.

// Under sequence parallelism a norm weight's gradient is partial over tp
// (each rank saw its own sequence shard): it is all-reduced over tp; the
// column GEMM's weight gradient is split, not partial, and is left alone.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[DW:[a-z0-9]+]]: tensor<8xf32, #dist.layout<@mesh, tp = P>>, %[[DFC:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>)
// CHECK-SAME: -> (tensor<8xf32> {tfm.grad_of = @ln.weight}, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {tfm.grad_of = @fc.weight})
// CHECK-NEXT: %[[R:[0-9]+]] = dist.all_reduce_coalesced %[[DW]] on @mesh["tp"] sum : (tensor<8xf32, #dist.layout<@mesh, tp = P>>) -> tensor<8xf32>
// CHECK-NEXT: return %[[R]], %[[DFC]] : tensor<8xf32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// BUCKETS-LABEL: func.func @train_step
// BUCKETS-NEXT: dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["tp"] sum
// BUCKETS-NEXT: return
// ZERO-LABEL: func.func @train_step
// ZERO-NOT: tfm.zero
// ZERO-NEXT: dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["tp"] sum
// ZERO-NEXT: return
dist.mesh @mesh ["tp" = 2] roles [tensor]
tfm.param @ln.weight : tensor<8xf32> init ones
tfm.param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
func.func @train_step(%dw: tensor<8xf32, #dist.layout<@mesh, tp = P>>, %dfc: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>)
    -> (tensor<8xf32, #dist.layout<@mesh, tp = P>> {tfm.grad_of = @ln.weight}, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {tfm.grad_of = @fc.weight}) attributes {tfm.train_step} {
  return %dw, %dfc : tensor<8xf32, #dist.layout<@mesh, tp = P>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
}

// -----

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
// With zero=1 the parameters that cannot be sharded over dp are named in a
// warning at the step: they keep whole optimizer state on every replica.
// expected-warning @+1 {{sp-sync-grads: ZeRO-1 cannot shard 1 parameter over 'dp' (2 ranks), whose first dimension does not divide by it: @c (3); their gradients are all-reduced and their optimizer state and master weights stay whole on every rank of the axis}}
func.func @train_step(%loss: tensor<f32>, %da: tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, %db: tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, %dc: tensor<3xf32, #dist.layout<@mesh, dp = P>>)
    -> (tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>> {tfm.grad_of = @a}, tensor<4x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @b}, tensor<3xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @c}) attributes {tfm.train_step} {
  return %loss, %da, %db, %dc : tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, tensor<3xf32, #dist.layout<@mesh, dp = P>>
}

// -----

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

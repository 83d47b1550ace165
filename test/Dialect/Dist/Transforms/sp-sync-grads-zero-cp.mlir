// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=1" -verify-diagnostics | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=1" -sp-optimizer="optimizer=adamw" -sp-verify -verify-diagnostics | FileCheck %s --check-prefix=OPT
// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=0" | FileCheck %s --check-prefix=NOZERO

// ZeRO-1 with context parallelism shards over the data AND context axes
// (Megatron's data-parallel group with cp): a gradient partial over dp and
// cp is reduce-scattered over dp (the outer axis, mesh order), then over cp
// on dp's already-split first dimension, so each of the dp x cp = 4 ranks
// keeps 1/4 of it. The axes are found by role (here "replica" and "seq").
// Where 4 does not divide the first dimension it falls back to dp alone (and
// an all-reduce over cp), or, where dp does not divide it either, to
// all-reduces; each fallback is named in one warning.

// tp first (n, a norm weight under SP, is also partial over tp); then over
// dp: a reduce-scatter of a, w (tp-split: its local 8 rows), n and b, an
// all-reduce of c; then over cp: a reduce-scatter of a, w and n, an
// all-reduce of b and c.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: -> (tensor<f32>, tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>> {tfm.grad_of = @a}, tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0), tp = S(0)>> {tfm.grad_of = @w}, tensor<2xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>> {tfm.grad_of = @n}, tensor<3xf32, #dist.layout<@mesh, replica = S(0)>> {tfm.grad_of = @b}, tensor<3xf32> {tfm.grad_of = @c}) attributes {tfm.train_step, tfm.zero}
// CHECK: %[[TP:[0-9]+]] = dist.all_reduce_coalesced %{{.*}} on @mesh["tp"] sum : (tensor<8xf32, #dist.layout<@mesh, replica = P, seq = P, tp = P>>) -> tensor<8xf32, #dist.layout<@mesh, replica = P, seq = P>>
// CHECK-NEXT: %[[DP:[0-9]+]]:4 = dist.reduce_scatter_coalesced %{{.*}}, %{{.*}}, %[[TP]], %{{.*}} on @mesh["replica"] : (tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P>>, tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, replica = P, seq = P>>, tensor<6xf32, #dist.layout<@mesh, replica = P, seq = P>>) -> (tensor<4x4xf32, #dist.layout<@mesh, replica = S(0), seq = P>>, tensor<4x4xf32, #dist.layout<@mesh, replica = S(0), seq = P, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, replica = S(0), seq = P>>, tensor<3xf32, #dist.layout<@mesh, replica = S(0), seq = P>>)
// CHECK-NEXT: %[[DPC:[0-9]+]] = dist.all_reduce_coalesced %{{.*}} on @mesh["replica"] sum : (tensor<3xf32, #dist.layout<@mesh, replica = P, seq = P>>) -> tensor<3xf32, #dist.layout<@mesh, seq = P>>
// CHECK-NEXT: %[[CP:[0-9]+]]:3 = dist.reduce_scatter_coalesced %[[DP]]#0, %[[DP]]#1, %[[DP]]#2 on @mesh["seq"] : (tensor<4x4xf32, #dist.layout<@mesh, replica = S(0), seq = P>>, tensor<4x4xf32, #dist.layout<@mesh, replica = S(0), seq = P, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, replica = S(0), seq = P>>) -> (tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>, tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0), tp = S(0)>>, tensor<2xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>)
// CHECK-NEXT: %[[CPR:[0-9]+]]:2 = dist.all_reduce_coalesced %[[DP]]#3, %[[DPC]] on @mesh["seq"] sum : (tensor<3xf32, #dist.layout<@mesh, replica = S(0), seq = P>>, tensor<3xf32, #dist.layout<@mesh, seq = P>>) -> (tensor<3xf32, #dist.layout<@mesh, replica = S(0)>>, tensor<3xf32>)
// CHECK-NEXT: return %{{.*}}, %[[CP]]#0, %[[CP]]#1, %[[CP]]#2, %[[CPR]]#0, %[[CPR]]#1 :

// The optimizer: the norm's sums of squares of the slices are partial over
// both axes (and tp for w); each rank updates its slice (the moments are
// the slice's: 2x4, 2x4, 2, 3, 3); a, w and n are gathered over cp within
// this rank's dp block (its type: the block, 4 rows), then over dp (the
// whole local parameter); b over dp only; c not at all.
// OPT-LABEL: func.func @train_step
// OPT: tfm.adamw_update @a, %{{.*}} : tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>, tensor<f32>
// OPT-NEXT: tfm.adamw_update @w, %{{.*}} : tensor<2x4xf32, #dist.layout<@mesh, replica = S(0), seq = S(0), tp = S(0)>>, tensor<f32>
// OPT-NEXT: tfm.adamw_update @n, %{{.*}} : tensor<2xf32, #dist.layout<@mesh, replica = S(0), seq = S(0)>>, tensor<f32>
// OPT-NEXT: tfm.adamw_update @b, %{{.*}} : tensor<3xf32, #dist.layout<@mesh, replica = S(0)>>, tensor<f32>
// OPT-NEXT: tfm.adamw_update @c, %{{.*}} : tensor<3xf32>, tensor<f32>
// OPT-NEXT: dist.all_gather_param @a on @mesh["seq"] within "replica" : tensor<4x4xf32>
// OPT-NEXT: dist.all_gather_param @a on @mesh["replica"] : tensor<8x4xf32>
// OPT-NEXT: dist.all_gather_param @w on @mesh["seq"] within "replica" : tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
// OPT-NEXT: dist.all_gather_param @w on @mesh["replica"] : tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>>
// OPT-NEXT: dist.all_gather_param @n on @mesh["seq"] within "replica" : tensor<4xf32>
// OPT-NEXT: dist.all_gather_param @n on @mesh["replica"] : tensor<8xf32>
// OPT-NEXT: dist.all_gather_param @b on @mesh["replica"] : tensor<6xf32>
// OPT-NEXT: return

// Without a distributed optimizer: the order is unchanged (the
// model-parallel axes in mesh order, cp among them, then dp), all-reduces
// only.
// NOZERO-LABEL: func.func @train_step
// NOZERO-NOT: tfm.zero
// NOZERO: dist.all_reduce_coalesced {{.*}} on @mesh["seq"] sum
// NOZERO-NEXT: dist.all_reduce_coalesced {{.*}} on @mesh["tp"] sum
// NOZERO-NEXT: dist.all_reduce_coalesced {{.*}} on @mesh["replica"] sum
// NOZERO-NEXT: return
dist.mesh @mesh ["replica" = 2, "seq" = 2, "tp" = 2] roles [data, context, tensor]
tfm.param @a : tensor<8x4xf32> init ones
tfm.param @w : tensor<16x4xf32, #dist.layout<@mesh, tp = S(0)>> init ones
tfm.param @n : tensor<8xf32> init ones
tfm.param @b : tensor<6xf32> init ones
tfm.param @c : tensor<3xf32> init ones
// expected-warning @+2 {{sp-sync-grads: ZeRO-1 shards 1 parameter over 'replica' (2 ranks) only, not over 'replica' x 'seq' (4 ranks), whose first dimension does not divide by 4: @b (6); their gradients are all-reduced over 'seq' and their optimizer state and master weights are replicated over it}}
// expected-warning @+1 {{sp-sync-grads: ZeRO-1 cannot shard 1 parameter over 'replica' x 'seq' (4 ranks), whose first dimension does not divide by it: @c (3); their gradients are all-reduced and their optimizer state and master weights stay whole on every rank of the axes}}
func.func @train_step(%loss: tensor<f32>, %da: tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P>>, %dw: tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P, tp = S(0)>>, %dn: tensor<8xf32, #dist.layout<@mesh, replica = P, seq = P, tp = P>>, %db: tensor<6xf32, #dist.layout<@mesh, replica = P, seq = P>>, %dc: tensor<3xf32, #dist.layout<@mesh, replica = P, seq = P>>)
    -> (tensor<f32>, tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P>> {tfm.grad_of = @a}, tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P, tp = S(0)>> {tfm.grad_of = @w}, tensor<8xf32, #dist.layout<@mesh, replica = P, seq = P, tp = P>> {tfm.grad_of = @n}, tensor<6xf32, #dist.layout<@mesh, replica = P, seq = P>> {tfm.grad_of = @b}, tensor<3xf32, #dist.layout<@mesh, replica = P, seq = P>> {tfm.grad_of = @c}) attributes {tfm.train_step} {
  %a = tfm.get_param @a : tensor<8x4xf32>
  %w = tfm.get_param @w : tensor<8x4xf32, #dist.layout<@mesh, tp = S(0)>>
  %n = tfm.get_param @n : tensor<8xf32>
  %b = tfm.get_param @b : tensor<6xf32>
  %c = tfm.get_param @c : tensor<3xf32>
  return %loss, %da, %dw, %dn, %db, %dc : tensor<f32>, tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P>>, tensor<8x4xf32, #dist.layout<@mesh, replica = P, seq = P, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, replica = P, seq = P, tp = P>>, tensor<6xf32, #dist.layout<@mesh, replica = P, seq = P>>, tensor<3xf32, #dist.layout<@mesh, replica = P, seq = P>>
}

// -----

// Context parallelism without a data axis: ZeRO-1 over the context axis
// alone (4 ranks), with the single-axis warning for what does not divide.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: -> (tensor<f32>, tensor<2x4xf32, #dist.layout<@mesh, cp = S(0)>> {tfm.grad_of = @a}, tensor<6xf32> {tfm.grad_of = @b}) attributes {tfm.train_step, tfm.zero}
// CHECK: %[[RS:[0-9]+]] = dist.reduce_scatter_coalesced %{{.*}} on @mesh["cp"] : (tensor<8x4xf32, #dist.layout<@mesh, cp = P>>) -> tensor<2x4xf32, #dist.layout<@mesh, cp = S(0)>>
// CHECK-NEXT: %[[AR:[0-9]+]] = dist.all_reduce_coalesced %{{.*}} on @mesh["cp"] sum : (tensor<6xf32, #dist.layout<@mesh, cp = P>>) -> tensor<6xf32>
// CHECK-NEXT: return %{{.*}}, %[[RS]], %[[AR]] :
// OPT-LABEL: func.func @train_step
// OPT: tfm.adamw_update @a, %{{.*}} : tensor<2x4xf32, #dist.layout<@mesh, cp = S(0)>>, tensor<f32>
// OPT-NEXT: tfm.adamw_update @b, %{{.*}} : tensor<6xf32>, tensor<f32>
// OPT-NEXT: dist.all_gather_param @a on @mesh["cp"] : tensor<8x4xf32>
// OPT-NEXT: return
// NOZERO-LABEL: func.func @train_step
// NOZERO-NOT: tfm.zero
dist.mesh @mesh ["cp" = 4, "tp" = 1] roles [context, tensor]
tfm.param @a : tensor<8x4xf32> init ones
tfm.param @b : tensor<6xf32> init ones
// expected-warning @+1 {{sp-sync-grads: ZeRO-1 cannot shard 1 parameter over 'cp' (4 ranks), whose first dimension does not divide by it: @b (6); their gradients are all-reduced and their optimizer state and master weights stay whole on every rank of the axis}}
func.func @train_step(%loss: tensor<f32>, %da: tensor<8x4xf32, #dist.layout<@mesh, cp = P>>, %db: tensor<6xf32, #dist.layout<@mesh, cp = P>>)
    -> (tensor<f32>, tensor<8x4xf32, #dist.layout<@mesh, cp = P>> {tfm.grad_of = @a}, tensor<6xf32, #dist.layout<@mesh, cp = P>> {tfm.grad_of = @b}) attributes {tfm.train_step} {
  %a = tfm.get_param @a : tensor<8x4xf32>
  %b = tfm.get_param @b : tensor<6xf32>
  return %loss, %da, %db : tensor<f32>, tensor<8x4xf32, #dist.layout<@mesh, cp = P>>, tensor<6xf32, #dist.layout<@mesh, cp = P>>
}

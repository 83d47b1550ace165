// RUN: sp-opt %s -split-input-file -sp-sync-grads="bucket-bytes=64" -sp-overlap-grad-reductions | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-sync-grads="bucket-bytes=32 zero=1 grad-reduce-dtype=bf16" -sp-overlap-grad-reductions | FileCheck %s --check-prefix=ZERO
// RUN: sp-opt %s -split-input-file -sp-sync-grads="bucket-bytes=64" -sp-overlap-grad-reductions -sp-plan-buffers | FileCheck %s --check-prefix=PLAN

// sp-overlap-grad-reductions: each gradient bucket starts right after its
// last gradient is computed (async), while the backward goes on; its
// results are read (it completes) where they were before.

// Three weights whose gradients the backward computes last layer first
// (c, b, a); buckets of at most 64 bytes: {a, b} (32 + 32) and {c} (32).
// c's bucket starts as soon as dc exists, a and b's after db, the later of
// theirs.
// CHECK-LABEL: func.func @train_step
// CHECK: %[[DC:.*]] = tfm.scale %{{.*}} by 3.000000e+00
// CHECK-NEXT: %[[RC:.*]] = dist.all_reduce_coalesced %[[DC]] on @mesh["dp"] sum async
// CHECK-NEXT: %[[DB:.*]] = tfm.scale %{{.*}} by 2.000000e+00
// CHECK-NEXT: %[[DA:.*]] = tfm.scale %{{.*}} by 1.000000e+00
// CHECK-NEXT: %[[RAB:.*]]:2 = dist.all_reduce_coalesced %[[DA]], %[[DB]] on @mesh["dp"] sum async
// CHECK-NEXT: %[[X:.*]] = tfm.add %{{.*}}, %{{.*}}
// CHECK-NEXT: return %{{.*}}, %[[RAB]]#0, %[[RAB]]#1, %[[RC]]
// ZERO-LABEL: func.func @train_step
// ZeRO-1's reduce-scatters in bf16 (buckets of 32 bf16 bytes: {a, b}, {c}):
// the narrowing of each operand moves with its bucket.
// ZERO: %[[DC:.*]] = tfm.scale %{{.*}} by 3.000000e+00
// ZERO-NEXT: %[[C16:.*]] = tfm.convert %[[DC]]
// ZERO-NEXT: %[[RC:.*]] = dist.reduce_scatter_coalesced %[[C16]] on @mesh["dp"] async
// ZERO-NEXT: %[[DB:.*]] = tfm.scale %{{.*}} by 2.000000e+00
// ZERO-NEXT: %[[B16:.*]] = tfm.convert %[[DB]]
// ZERO-NEXT: %[[DA:.*]] = tfm.scale %{{.*}} by 1.000000e+00
// ZERO-NEXT: %[[A16:.*]] = tfm.convert %[[DA]]
// ZERO-NEXT: dist.reduce_scatter_coalesced %[[A16]], %[[B16]] on @mesh["dp"] async
// The workspace of an async bucket is live until its wait point (the
// return): c's (32 bytes packed + 16 reduced) is not reused by the values
// computed meanwhile (db, da, x).
// PLAN-LABEL: func.func @train_step
// PLAN: dist.all_reduce_coalesced {{.*}} async {dist.arena_offsets = array<i64: [[RC:[0-9]+]]>, dist.workspace_offset = [[WC:[0-9]+]] : i64}
// PLAN-NOT: {{[ ,]}}[[WC]]{{[,>]}}
// PLAN: return
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @a : tensor<8xf32> init ones
tfm.param @b : tensor<8xf32> init ones
tfm.param @c : tensor<8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %g: tensor<8xf32, #dist.layout<@mesh, dp = P>>, %h: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @a}, tensor<8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @b}, tensor<8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @c}) attributes {tfm.train_step} {
  %dc = tfm.scale %g by 3.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %db = tfm.scale %g by 2.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %da = tfm.scale %g by 1.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %x = tfm.add %h, %h : tensor<8xf32>
  return %loss, %da, %db, %dc : tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<8xf32, #dist.layout<@mesh, dp = P>>
}

// RUN: sp-opt %s -split-input-file -sp-sync-grads | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-sync-grads="bucket-bytes=160" | FileCheck %s --check-prefix=BUCKETS
// RUN: sp-opt %s -split-input-file -sp-sync-grads="zero=1" | FileCheck %s --check-prefix=ZERO

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


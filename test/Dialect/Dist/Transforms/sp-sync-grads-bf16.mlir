// RUN: sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=bf16" | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=bf16 bucket-bytes=80" | FileCheck %s --check-prefix=BUCKETS
// RUN: sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=bf16 zero=1" | FileCheck %s --check-prefix=ZERO
// RUN: sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=bf16" -sp-legalize-precision | FileCheck %s --check-prefix=LEGAL
// RUN: sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=f32" | FileCheck %s --check-prefix=F32
// RUN: sp-opt %s -split-input-file -sp-sync-grads | FileCheck %s --check-prefix=F32
// RUN: not sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=f16" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sp-opt %s -split-input-file -sp-sync-grads="grad-reduce-dtype=BF16" 2>&1 | FileCheck %s --check-prefix=BAD-CASE

// sp-sync-grads with grad-reduce-dtype=bf16 (Megatron-LM's option): each
// bucket's f32 gradients are converted to bf16 before the coalesced
// reduction, which sums bf16, and each result is converted back to f32;
// bucket-bytes counts the bf16 bytes. A gradient reduced over tp, then dp
// is not converted back and forth in between (bf16 -> f32 -> bf16 is the
// identity). sp-legalize-precision leaves such a reduction in bf16 (the
// runtime sums bf16 natively). f32 (the default) converts nothing; any
// other value is an error naming the pass, the option and the value.

// BAD: for the --grad-reduce-dtype option: Cannot find option named 'f16'!
// BAD-CASE: for the --grad-reduce-dtype option: Cannot find option named 'BF16'!

// dp=2, tp=2: a's gradient is reduced over tp, then a, b and c over dp, each
// in bf16.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DA:[a-z0-9]+]]: tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, %[[DB:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, %[[DC:[a-z0-9]+]]: tensor<3xf32, #dist.layout<@mesh, dp = P>>)
// CHECK-SAME: -> (tensor<f32>, tensor<8xf32> {tfm.grad_of = @a}, tensor<4x8xf32> {tfm.grad_of = @b}, tensor<3xf32> {tfm.grad_of = @c})
// CHECK-NEXT: %[[A16:[0-9]+]] = tfm.convert %[[DA]] : tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<8xbf16, #dist.layout<@mesh, dp = P, tp = P>>
// CHECK-NEXT: %[[TP:[0-9]+]] = dist.all_reduce_coalesced %[[A16]] on @mesh["tp"] sum : (tensor<8xbf16, #dist.layout<@mesh, dp = P, tp = P>>) -> tensor<8xbf16, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[B16:[0-9]+]] = tfm.convert %[[DB]] : tensor<4x8xf32, #dist.layout<@mesh, dp = P>> -> tensor<4x8xbf16, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[C16:[0-9]+]] = tfm.convert %[[DC]] : tensor<3xf32, #dist.layout<@mesh, dp = P>> -> tensor<3xbf16, #dist.layout<@mesh, dp = P>>
// CHECK-NEXT: %[[DP:[0-9]+]]:3 = dist.all_reduce_coalesced %[[TP]], %[[B16]], %[[C16]] on @mesh["dp"] sum : (tensor<8xbf16, #dist.layout<@mesh, dp = P>>, tensor<4x8xbf16, #dist.layout<@mesh, dp = P>>, tensor<3xbf16, #dist.layout<@mesh, dp = P>>) -> (tensor<8xbf16>, tensor<4x8xbf16>, tensor<3xbf16>)
// CHECK-NEXT: %[[RA:[0-9]+]] = tfm.convert %[[DP]]#0 : tensor<8xbf16> -> tensor<8xf32>
// CHECK-NEXT: %[[RB:[0-9]+]] = tfm.convert %[[DP]]#1 : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT: %[[RC:[0-9]+]] = tfm.convert %[[DP]]#2 : tensor<3xbf16> -> tensor<3xf32>
// CHECK-NEXT: return %[[LOSS]], %[[RA]], %[[RB]], %[[RC]] : tensor<f32>, tensor<8xf32>, tensor<4x8xf32>, tensor<3xf32>
// Buckets of at most 80 bf16 bytes: a (16) and b (64) share one, c (6)
// starts the next (in f32, 32 + 128 bytes would not fit).
// BUCKETS-LABEL: func.func @train_step
// BUCKETS: dist.all_reduce_coalesced %{{[0-9]+}} on @mesh["tp"] sum
// BUCKETS: dist.all_reduce_coalesced %{{[0-9]+}}, %{{[0-9]+}} on @mesh["dp"] sum : (tensor<8xbf16, #dist.layout<@mesh, dp = P>>, tensor<4x8xbf16, #dist.layout<@mesh, dp = P>>) -> (tensor<8xbf16>, tensor<4x8xbf16>)
// BUCKETS: dist.all_reduce_coalesced %{{[0-9]+}} on @mesh["dp"] sum : (tensor<3xbf16, #dist.layout<@mesh, dp = P>>) -> tensor<3xbf16>
// BUCKETS: return
// zero=1: a and b (8 and 4 rows, which dp=2 divides) are reduce-scattered
// over dp in bf16, c (3 rows) all-reduced; each result converted to f32.
// ZERO-LABEL: func.func @train_step
// ZERO: dist.all_reduce_coalesced %{{[0-9]+}} on @mesh["tp"] sum : (tensor<8xbf16
// ZERO: %[[RS:[0-9]+]]:2 = dist.reduce_scatter_coalesced %{{[0-9]+}}, %{{[0-9]+}} on @mesh["dp"] : (tensor<8xbf16, #dist.layout<@mesh, dp = P>>, tensor<4x8xbf16, #dist.layout<@mesh, dp = P>>) -> (tensor<4xbf16, #dist.layout<@mesh, dp = S(0)>>, tensor<2x8xbf16, #dist.layout<@mesh, dp = S(0)>>)
// ZERO-NEXT: tfm.convert %[[RS]]#0 : tensor<4xbf16, #dist.layout<@mesh, dp = S(0)>> -> tensor<4xf32, #dist.layout<@mesh, dp = S(0)>>
// ZERO-NEXT: tfm.convert %[[RS]]#1 : tensor<2x8xbf16, #dist.layout<@mesh, dp = S(0)>> -> tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>
// ZERO: dist.all_reduce_coalesced %{{[0-9]+}} on @mesh["dp"] sum : (tensor<3xbf16, #dist.layout<@mesh, dp = P>>) -> tensor<3xbf16>
// ZERO-NEXT: tfm.convert %{{[0-9]+}} : tensor<3xbf16> -> tensor<3xf32>
// ZERO: return
// LEGAL-LABEL: func.func @train_step
// LEGAL: dist.all_reduce_coalesced %{{[0-9]+}} on @mesh["tp"] sum : (tensor<8xbf16
// LEGAL: dist.all_reduce_coalesced %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} on @mesh["dp"] sum : (tensor<8xbf16
// LEGAL-NOT: dist.all_reduce_coalesced {{.*}}f32
// LEGAL: return
// F32-LABEL: func.func @train_step
// F32-NOT: tfm.convert
// F32: dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["tp"] sum : (tensor<8xf32
// F32-NOT: tfm.convert
// F32: dist.all_reduce_coalesced %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} on @mesh["dp"] sum : (tensor<8xf32
// F32-NOT: tfm.convert
// F32: return
dist.mesh @mesh ["dp" = 2, "tp" = 2] roles [data, tensor]
tfm.param @a : tensor<8xf32> init ones
tfm.param @b : tensor<4x8xf32> init ones
tfm.param @c : tensor<3xf32> init ones
func.func @train_step(%loss: tensor<f32>, %da: tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, %db: tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, %dc: tensor<3xf32, #dist.layout<@mesh, dp = P>>)
    -> (tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>> {tfm.grad_of = @a}, tensor<4x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @b}, tensor<3xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @c}) attributes {tfm.train_step} {
  return %loss, %da, %db, %dc : tensor<f32>, tensor<8xf32, #dist.layout<@mesh, dp = P, tp = P>>, tensor<4x8xf32, #dist.layout<@mesh, dp = P>>, tensor<3xf32, #dist.layout<@mesh, dp = P>>
}

// -----

// An f32 gradient widened from a bf16 one (a master weight's gradient, as
// tfm.convert's backward returns it) is reduced from its bf16 value, and
// the widening convert, read by nothing else, is gone.
// CHECK-LABEL: func.func @widened
// CHECK-SAME: (%[[D16:[a-z0-9]+]]: tensor<4xbf16, #dist.layout<@mesh, dp = P>>)
// CHECK-NEXT: %[[R:[0-9]+]] = dist.all_reduce_coalesced %[[D16]] on @mesh["dp"] sum : (tensor<4xbf16, #dist.layout<@mesh, dp = P>>) -> tensor<4xbf16>
// CHECK-NEXT: %[[R32:[0-9]+]] = tfm.convert %[[R]] : tensor<4xbf16> -> tensor<4xf32>
// CHECK-NEXT: return %[[R32]]
// F32-LABEL: func.func @widened
// F32-NEXT: %[[W:[0-9]+]] = tfm.convert
// F32-NEXT: dist.all_reduce_coalesced %[[W]] on @mesh["dp"] sum : (tensor<4xf32
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<4xf32> init ones
func.func @widened(%dw: tensor<4xbf16, #dist.layout<@mesh, dp = P>>)
    -> (tensor<4xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %w = tfm.convert %dw : tensor<4xbf16, #dist.layout<@mesh, dp = P>> -> tensor<4xf32, #dist.layout<@mesh, dp = P>>
  return %w : tensor<4xf32, #dist.layout<@mesh, dp = P>>
}

// -----

// A bf16 gradient (no master weights) is reduced as it is: no convert.
// CHECK-LABEL: func.func @bf16_grads
// CHECK-NEXT: %[[R:[0-9]+]] = dist.all_reduce_coalesced %{{[a-z0-9]+}} on @mesh["dp"] sum : (tensor<4xbf16, #dist.layout<@mesh, dp = P>>) -> tensor<4xbf16>
// CHECK-NEXT: return %[[R]]
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<4xbf16> init ones
func.func @bf16_grads(%dw: tensor<4xbf16, #dist.layout<@mesh, dp = P>>)
    -> (tensor<4xbf16, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  return %dw : tensor<4xbf16, #dist.layout<@mesh, dp = P>>
}

// RUN: sp-opt %s -split-input-file -sp-optimizer="optimizer=adamw" | FileCheck %s --check-prefix=ADAMW
// RUN: sp-opt %s -split-input-file -sp-optimizer="optimizer=sgd" | FileCheck %s --check-prefix=SGD
// RUN: sp-opt %s -split-input-file -sp-optimizer="master-weights=replicated" | FileCheck %s --check-prefix=REPLICATED
// RUN: sp-opt %s -split-input-file -sp-optimizer="master-weights=sharded" | FileCheck %s --check-prefix=SHARDED

// Sharded master weights (ZeRO-1 of a bf16 model, as tfm-master-weights and
// sp-sync-grads="zero=1" leave it): @w's gradient is a dp slice and every
// read of it is converted to bf16, so @w is stored in bf16 (read directly,
// the converts gone), its update keeps the f32 master slice (`master`) and
// the bf16 parameter is gathered. @c (not sliced: all-reduced) keeps its
// f32 master weight and its convert, updated whole as before. @t, a tied
// table read by two ops through two converts, is sharded too.
// ADAMW-LABEL: tfm.param @w : tensor<4x8xbf16> init ones
// ADAMW-NEXT: tfm.param @c : tensor<3xf32> init ones
// ADAMW-NEXT: tfm.param @t : tensor<4x8xbf16> init ones
// ADAMW-LABEL: func.func @train_step
// ADAMW: %[[W:[0-9]+]] = tfm.get_param @w : tensor<4x8xbf16>
// ADAMW-NEXT: %[[C:[0-9]+]] = tfm.get_param @c : tensor<3xf32>
// ADAMW-NEXT: %[[CC:[0-9]+]] = tfm.convert %[[C]] : tensor<3xf32> -> tensor<3xbf16>
// ADAMW-NEXT: %[[T:[0-9]+]] = tfm.get_param @t : tensor<4x8xbf16>
// ADAMW-NEXT: tfm.gelu %[[W]] approximate none : tensor<4x8xbf16>
// ADAMW-NEXT: tfm.gelu %[[CC]] approximate none : tensor<3xbf16>
// ADAMW-NEXT: tfm.gelu %[[T]] approximate none : tensor<4x8xbf16>
// ADAMW-NEXT: tfm.gelu %[[T]] approximate none : tensor<4x8xbf16>
// ADAMW-NOT: tfm.convert
// ADAMW: tfm.adamw_update @w, %{{[a-z0-9]+}} master scale
// ADAMW-SAME: : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<f32>
// ADAMW-NEXT: tfm.adamw_update @c, %{{[a-z0-9]+}} scale
// ADAMW-NEXT: tfm.adamw_update @t, %{{[a-z0-9]+}} master scale
// ADAMW-NEXT: dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xbf16>
// ADAMW-NEXT: dist.all_gather_param @t on @mesh["dp"] : tensor<4x8xbf16>
// ADAMW-NEXT: return
// SGD-LABEL: func.func @train_step
// SGD: tfm.sgd_update @w, %{{[a-z0-9]+}} master scale
// SGD-NEXT: tfm.sgd_update @c, %{{[a-z0-9]+}} scale
// SGD-NEXT: tfm.sgd_update @t, %{{[a-z0-9]+}} master scale
// SGD-NEXT: dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xbf16>
// With master-weights=replicated every parameter stays an f32 master
// weight, gathered in f32.
// REPLICATED-LABEL: tfm.param @w : tensor<4x8xf32> init ones
// REPLICATED-NEXT: tfm.param @c : tensor<3xf32> init ones
// REPLICATED-NEXT: tfm.param @t : tensor<4x8xf32> init ones
// REPLICATED-NOT: master
// REPLICATED: dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xf32>
// REPLICATED-NEXT: dist.all_gather_param @t on @mesh["dp"] : tensor<4x8xf32>
// REPLICATED-NOT: master
module attributes {tfm.precision = "bf16"} {
dist.mesh @mesh ["dp" = 2, "tp" = 1] roles [data, tensor]
tfm.param @w : tensor<4x8xf32> init ones
tfm.param @c : tensor<3xf32> init ones
tfm.param @t : tensor<4x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, %dc: tensor<3xf32>, %dt: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>)
    -> (tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @w}, tensor<3xf32> {tfm.grad_of = @c}, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @t}) attributes {tfm.train_step, tfm.zero} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %c = tfm.get_param @c : tensor<3xf32>
  %cc = tfm.convert %c : tensor<3xf32> -> tensor<3xbf16>
  %t = tfm.get_param @t : tensor<4x8xf32>
  %wc = tfm.convert %w : tensor<4x8xf32> -> tensor<4x8xbf16>
  %a = tfm.gelu %wc approximate none : tensor<4x8xbf16>
  %b = tfm.gelu %cc approximate none : tensor<3xbf16>
  %tc1 = tfm.convert %t : tensor<4x8xf32> -> tensor<4x8xbf16>
  %d = tfm.gelu %tc1 approximate none : tensor<4x8xbf16>
  %tc2 = tfm.convert %t : tensor<4x8xf32> -> tensor<4x8xbf16>
  %e = tfm.gelu %tc2 approximate none : tensor<4x8xbf16>
  return %loss, %dw, %dc, %dt : tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<3xf32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>
}
}

// -----

// A read used in f32 (not only converted to the model's precision) keeps
// the replicated f32 master weight: its value is the master's, not its
// rounding. So does an f16 read of a bf16 model's parameter.
// ADAMW-LABEL: tfm.param @w : tensor<4x8xf32> init ones
// ADAMW-NEXT: tfm.param @v : tensor<4x8xf32> init ones
// ADAMW-LABEL: func.func @train_step
// ADAMW-NOT: master
// ADAMW: dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xf32>
// ADAMW-NEXT: dist.all_gather_param @v on @mesh["dp"] : tensor<4x8xf32>
module attributes {tfm.precision = "bf16"} {
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<4x8xf32> init ones
tfm.param @v : tensor<4x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, %dv: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>)
    -> (tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @w}, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @v}) attributes {tfm.train_step, tfm.zero} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %wc = tfm.convert %w : tensor<4x8xf32> -> tensor<4x8xbf16>
  %a = tfm.gelu %wc approximate none : tensor<4x8xbf16>
  %b = tfm.gelu %w approximate none : tensor<4x8xf32>
  %v = tfm.get_param @v : tensor<4x8xf32>
  %vc = tfm.convert %v : tensor<4x8xf32> -> tensor<4x8xf16>
  return %loss, %dw, %dv : tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>
}
}

// -----

// Without ZeRO-1 (no tfm.zero: gradients all-reduced), or for an f32
// model, the master weights stay the f32 parameters by default (auto).
// With master-weights=sharded the bf16 model's parameter is stored in bf16
// without ZeRO-1 too, its read no longer converted, and its whole f32
// master is optimizer state (the update's `master`).
// ADAMW-LABEL: tfm.param @nz : tensor<4x8xf32> init ones
// ADAMW-LABEL: func.func @train_step
// ADAMW: tfm.adamw_update @nz, %{{[a-z0-9]+}} scale
// ADAMW-NOT: master
// SGD-LABEL: func.func @train_step
// SGD: tfm.sgd_update @nz, %{{[a-z0-9]+}} scale
// SHARDED-LABEL: tfm.param @nz : tensor<4x8xbf16> init ones
// SHARDED: func.func @train_step
// SHARDED-NEXT: tfm.get_param @nz : tensor<4x8xbf16>
// SHARDED-NOT: tfm.convert
// SHARDED: tfm.adamw_update @nz, %{{[a-z0-9]+}} master scale {{.*}} : tensor<4x8xf32>, tensor<f32>
module attributes {tfm.precision = "bf16"} {
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @nz : tensor<4x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4x8xf32>)
    -> (tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @nz}) attributes {tfm.train_step} {
  %nz = tfm.get_param @nz : tensor<4x8xf32>
  %wc = tfm.convert %nz : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %loss, %dw : tensor<f32>, tensor<4x8xf32>
}
}

// -----

// ADAMW-LABEL: tfm.param @w : tensor<4x8xf32> init ones
// ADAMW-LABEL: func.func @train_step
// ADAMW: tfm.adamw_update @w, %{{[a-z0-9]+}} scale
// ADAMW-NOT: master
module attributes {tfm.precision = "f32"} {
dist.mesh @mesh ["dp" = 2] roles [data]
tfm.param @w : tensor<4x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>)
    -> (tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.zero} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  return %loss, %dw : tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>
}
}

// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics | FileCheck %s

// A correct TP+SP block verifies and is left unchanged.
// CHECK-LABEL: func.func @sp_block
dist.mesh @mesh ["tp" = 2]
tfm.param @ln.weight : tensor<8xf32> init ones
tfm.param @fc.weight : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
func.func @sp_block(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  %n = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %g = dist.all_gather %n on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %w1 = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %h = tfm.linear %g, %w1 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %a = tfm.silu %h : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w2 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.add %x, %r : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %out = dist.all_gather %y on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  return %out : tensor<4x1x8xf32>
}



// A shard of another size than the one the function reads.
tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
func.func @shard_shape(%g: tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>', which is not how the function reads it}}
  tfm.adamw_update @w, %g scale %s lr 1.0e-03 betas 0.9, 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  return
}

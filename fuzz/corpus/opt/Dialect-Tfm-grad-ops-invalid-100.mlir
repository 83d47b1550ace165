
// A shard of another size than the one the function reads.
tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
func.func @shard_shape(%g: tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 1.0e-03
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>', which is not how the function reads it}}
  tfm.adamw_update @w, %g scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.hyperparameter, and the optimizer ops' hyperparameter operands
//===----------------------------------------------------------------------===//


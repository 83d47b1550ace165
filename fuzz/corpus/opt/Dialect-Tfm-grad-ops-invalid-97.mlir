
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @scale_not_scalar(%g: tensor<8x8xf32>, %s: tensor<f32>, %t: tensor<1xf32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  tfm.sgd_update @w, %g scale %t lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<1xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.adamw_update
//===----------------------------------------------------------------------===//


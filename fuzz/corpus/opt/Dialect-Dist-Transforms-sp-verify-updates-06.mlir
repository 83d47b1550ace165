
// Each parameter updated once, but with the other's gradient.
tfm.param @w : tensor<8xf32> init zeros
tfm.param @v : tensor<8xf32> init zeros
func.func @train_step(%gw: tensor<8xf32>, %gv: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @v})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  %v = tfm.get_param @v : tensor<8xf32>
  // expected-error @+1 {{'tfm.sgd_update' op updates parameter @w with a value that is not its gradient, result #0 of @train_step}}
  tfm.sgd_update @w, %gv scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  tfm.sgd_update @v, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw, %gv : tensor<8xf32>, tensor<8xf32>
}


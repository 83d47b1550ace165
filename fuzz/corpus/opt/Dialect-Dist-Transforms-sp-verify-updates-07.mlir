
// Two results claiming to be the gradient of one parameter.
tfm.param @w : tensor<8xf32> init zeros
// expected-error @+1 {{'func.func' op returns two gradients of parameter @w, results #0 and #1}}
func.func @train_step(%g0: tensor<8xf32>, %g1: tensor<8xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  tfm.sgd_update @w, %g0 scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %g0, %g1 : tensor<8xf32>, tensor<8xf32>
}

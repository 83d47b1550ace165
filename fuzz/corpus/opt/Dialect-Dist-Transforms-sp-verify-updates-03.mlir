
// A parameter whose gradient exists but is never applied.
tfm.param @w : tensor<8xf32> init zeros
tfm.param @v : tensor<4xf32> init zeros
// expected-error @+1 {{'func.func' op never updates parameter @v, whose gradient it returns as result #1: every parameter with a gradient is updated exactly once per step}}
func.func @train_step(%gw: tensor<8xf32>, %gv: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<8xf32> {tfm.grad_of = @w}, tensor<4xf32> {tfm.grad_of = @v})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8xf32>
  %v = tfm.get_param @v : tensor<4xf32>
  tfm.sgd_update @w, %gw scale %s lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
  return %gw, %gv : tensor<8xf32>, tensor<4xf32>
}


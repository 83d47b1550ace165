
// A value the runtime does not set per step (here an argument) is not a
// hyperparameter.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @lr_argument(%g: tensor<8x8xf32>, %s: tensor<f32>, %lr: f64) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %wd = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{'lr' must be read by tfm.hyperparameter lr, got a block argument}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %wd : tensor<8x8xf32>, tensor<f32>
  return
}



// A read after the update ops counts (the whole function is indexed).
tfm.param @w : tensor<8x8xf32> init normal(0.02)
tfm.param @v : tensor<8x8xf32> init normal(0.02)
func.func @read_after(%g: tensor<8x8xf32>, %s: tensor<f32>) -> tensor<8x8xf32> {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %v = tfm.get_param @v : tensor<8x8xf32>
  tfm.sgd_update @v, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  %w = tfm.get_param @w : tensor<8x8xf32>
  %sum = tfm.add %v, %w : tensor<8x8xf32>
  return %sum : tensor<8x8xf32>
}

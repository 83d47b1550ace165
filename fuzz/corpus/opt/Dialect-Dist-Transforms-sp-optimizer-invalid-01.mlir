
// The same when only the step's mark is left.
tfm.param @w : tensor<4xf32> init ones
// expected-error @+1 {{'func.func' op already has its optimizer step (tfm.optimizer = #tfm.optimizer<adamw>); sp-optimizer runs once per step}}
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32> {tfm.grad_of = @w}) attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<adamw>} {
  %w = tfm.get_param @w : tensor<4xf32>
  return %loss, %dw : tensor<f32>, tensor<4xf32>
}


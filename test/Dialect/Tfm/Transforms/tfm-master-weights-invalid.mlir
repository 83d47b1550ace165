// RUN: sp-opt %s -split-input-file -tfm-master-weights -verify-diagnostics

// tfm-master-weights refuses a model of two precisions, a record that
// disagrees with the parameters, and a step already differentiated (its
// gradients would stay in the model's precision).

tfm.param @a : tensor<8xbf16> init ones
// expected-error @+1 {{'tfm.param' op is 'f16' while other parameters are 'bf16': a model has one precision (tfm-precision)}}
tfm.param @b : tensor<8xf16> init ones

// -----

// expected-error @+1 {{tfm-master-weights: the module's tfm.precision is "f16" but its parameters are 'bf16'}}
module attributes {tfm.precision = "f16"} {
tfm.param @a : tensor<8xbf16> init ones
}

// -----

tfm.param @w : tensor<8xbf16> init ones
// expected-error @+1 {{'func.func' op is already differentiated: tfm-master-weights runs before tfm-autodiff}}
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> (tensor<f32>, tensor<8xbf16> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %l = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 0.0 : tensor<8xbf16>
  return %l, %g : tensor<f32>, tensor<8xbf16>
}

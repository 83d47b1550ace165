// RUN: sp-opt %s -split-input-file -tfm-precision -verify-diagnostics

// tfm-precision sets the model's precision before sp-partition and
// tfm-autodiff, which create f32 statistics and gradients of their own: a
// partitioned or differentiated module is refused, naming the op.

// expected-error @+1 {{'dist.mesh' op is already partitioned or differentiated: tfm-precision runs on the model before sp-partition}}
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<8xf32> init ones
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

tfm.param @w : tensor<8xf32> init ones
// expected-error @+1 {{'func.func' op is already partitioned or differentiated: tfm-precision runs on the model before sp-partition}}
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> (tensor<f32>, tensor<8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %l = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 0.0 : tensor<8xf32>
  return %l, %g : tensor<f32>, tensor<8xf32>
}

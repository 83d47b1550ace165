
// The step takes token ids and labels and returns the loss.
tfm.param @w : tensor<8x4xf32> init normal(2.000000e-02)
// expected-error @+1 {{'func.func' op must be (input_ids: [s, b] i64, labels: [s, b] i64) -> (tensor<f32>, ...) to be lowered, got '(tensor<4x1xi64>) -> tensor<f32>'}}
func.func @forward(%ids: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x4xf32>) -> tensor<4x1x4xf32>
  %l = tfm.cross_entropy %x, %ids ignore_index -100 : (tensor<4x1x4xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}


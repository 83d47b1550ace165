// A tied embedding with dropout (eval-step.mlir).
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @wte : tensor<16x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  %d = tfm.dropout %x rate 0.1 stream 1 : tensor<8x2x4xf32>
  %logits = tfm.linear %d, %w weight_layout out_in : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

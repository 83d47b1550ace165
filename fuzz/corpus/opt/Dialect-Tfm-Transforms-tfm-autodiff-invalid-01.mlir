
// A backward op in a forward: backward ops have no backward of their own.
// CHECK: error: 'tfm.gelu_grad' op has no gradient rule in tfm-autodiff{{$}}
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  // expected-error @+1 {{'tfm.gelu_grad' op has no gradient rule in tfm-autodiff}}
  %y = tfm.gelu_grad %x, %x approximate tanh : tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}


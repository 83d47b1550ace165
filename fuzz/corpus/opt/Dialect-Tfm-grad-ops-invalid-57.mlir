
func.func @scalar_dy(%d: tensor<f32>) {
  // expected-error @+1 {{dy's last dimension must be heads * factor * head_dim = 1}}
  %0 = tfm.repeat_heads_grad %d heads 1 head_dim 1 factor 1 : tensor<f32> -> tensor<f32>
  return
}


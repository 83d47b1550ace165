
func.func @input_rank0(%k: tensor<f32>) {
  // expected-error @+1 {{input's last dimension must be heads * head_dim = 1, got []}}
  %0 = tfm.repeat_heads %k heads 1 head_dim 1 factor 2 : tensor<f32> -> tensor<f32>
  return
}


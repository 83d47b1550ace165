
func.func @input_width(%k: tensor<8x2x12xf32>) {
  // expected-error @+1 {{input's last dimension must be heads * head_dim = 8, got [8, 2, 12]}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x12xf32> -> tensor<8x2x16xf32>
  return
}



func.func @dy_features(%d: tensor<8x2x8xf32>) {
  // expected-error @+1 {{dy's last dimension must be heads * factor * head_dim = 16}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 2 : tensor<8x2x8xf32> -> tensor<8x2x8xf32>
  return
}



// MQA: v must be one head wide.
func.func @v_width(%q: tensor<8x2x32xf32>, %k: tensor<8x2x8xf32>, %v: tensor<8x2x16xf32>) {
  // expected-error @+1 {{v must have shape [8, 2, 8], got [8, 2, 16]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 1 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x8xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
  return
}


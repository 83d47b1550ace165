
// Causal: half.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 32768,
func.func @f(%q: tensor<16x2x32xf32>, %k: tensor<16x2x16xf32>, %v: tensor<16x2x16xf32>) -> tensor<16x2x32xf32> {
  %o = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 {causal} : tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<16x2x32xf32>
  return %o : tensor<16x2x32xf32>
}


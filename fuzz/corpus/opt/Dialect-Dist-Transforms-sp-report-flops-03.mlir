
// attention, b 2, 4 heads of 8 over 16 positions (GQA: 2 kv heads do not
// change it): 4 * 2 * 4 * 16 * 16 * 8.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 65536,
func.func @f(%q: tensor<16x2x32xf32>, %k: tensor<16x2x16xf32>, %v: tensor<16x2x16xf32>) -> tensor<16x2x32xf32> {
  %o = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 : tensor<16x2x32xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<16x2x32xf32>
  return %o : tensor<16x2x32xf32>
}


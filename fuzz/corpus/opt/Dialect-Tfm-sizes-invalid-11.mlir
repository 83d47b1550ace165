
func.func @repeat_heads(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{'tfm.repeat_heads' op heads * factor * head_dim = 2 * 4611686018427387904 * 2 overflows int64}}
  %0 = tfm.repeat_heads %x heads 2 head_dim 2 factor 4611686018427387904 : tensor<1x1x4xf32> -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}


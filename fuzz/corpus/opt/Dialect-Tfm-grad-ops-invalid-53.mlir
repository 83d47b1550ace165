
func.func @bad_packing(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'packing' [blocks, heads]}}
  %0 = tfm.qkv_concat %d, %d, %d packing interleaved heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.repeat_heads_grad
//===----------------------------------------------------------------------===//


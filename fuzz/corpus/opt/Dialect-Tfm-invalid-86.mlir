
func.func @result_element(%x: tensor<8x48xbf16>) {
  // expected-error @+1 {{result 1 must have shape [8, 16] and element type 'bf16', got 'tensor<8x16xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x48xbf16> -> tensor<8x16xbf16>, tensor<8x16xf32>, tensor<8x16xbf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.attention
//===----------------------------------------------------------------------===//


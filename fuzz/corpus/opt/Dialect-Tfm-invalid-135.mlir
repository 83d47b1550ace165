
func.func @result_element(%k: tensor<8x2x8xf16>) {
  // expected-error @+1 {{result must have shape [8, 2, 16] and element type 'f16', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x8xf16> -> tensor<8x2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.logits_max
//===----------------------------------------------------------------------===//


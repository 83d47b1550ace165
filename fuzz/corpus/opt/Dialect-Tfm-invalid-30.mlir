
func.func @rank3() {
  // expected-error @+1 {{result must be a rank-2 [s, b] tensor, got 'tensor<8x2x1xi32>'}}
  %0 = tfm.position_ids : tensor<8x2x1xi32>
  return
}



func.func @rank1() {
  // expected-error @+1 {{result must be a rank-2 [s, b] tensor, got 'tensor<8xi64>'}}
  %0 = tfm.position_ids : tensor<8xi64>
  return
}


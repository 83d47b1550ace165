
func.func @silu_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.silu"(%x) : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}


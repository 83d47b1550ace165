
func.func @result_ids_shape(%ids: tensor<8x2xi64>, %t: tensor<64x16xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 16] (ids shape + hidden), got [2, 8, 16]}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  return
}


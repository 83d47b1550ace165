
func.func @result_element(%ids: tensor<8x2xi64>, %t: tensor<64x16xf32>) {
  // expected-error @+1 {{result element type 'bf16' differs from the table's 'f32'}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<8x2x16xbf16>
  return
}


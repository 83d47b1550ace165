
func.func @dy_rank(%ids: tensor<8x2xi64>, %dy: tensor<16x16xf32>) {
  // expected-error @+1 {{dy must have the ids' shape followed by the hidden size, got [16, 16]}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<16x16xf32>) -> tensor<64x16xf32>
  return
}


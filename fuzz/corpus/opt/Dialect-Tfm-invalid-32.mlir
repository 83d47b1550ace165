
func.func @table_rank(%ids: tensor<8x2xi64>, %t: tensor<64xf32>) {
  // expected-error @+1 {{table must have rank 2 [vocab, hidden], got [64]}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64xf32>) -> tensor<8x2x64xf32>
  return
}


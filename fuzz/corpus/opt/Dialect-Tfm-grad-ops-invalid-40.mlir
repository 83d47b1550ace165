
func.func @table_rank(%ids: tensor<8x2xi64>, %dy: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the table gradient must be [vocab, 16], got 'tensor<1024xf32>'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<8x2x16xf32>) -> tensor<1024xf32>
  return
}


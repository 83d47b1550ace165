
func.func @table_element_type(%ids: tensor<8x2xi64>, %dy: tensor<8x2x16xbf16>) {
  // expected-error @+1 {{the table gradient must be [vocab, 16], got 'tensor<64x16xf32>'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<8x2x16xbf16>) -> tensor<64x16xf32>
  return
}


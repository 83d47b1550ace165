
// The gradient ops check the same (here the table gradient of an embedding).
func.func @grad(%ids: tensor<2x1xi64>, %dy: tensor<2x1x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'tfm.embedding_grad' op result #0 has shape [4611686018427387904, 4], whose element count overflows int64}}
  %d = tfm.embedding_grad %ids, %dy : (tensor<2x1xi64>, tensor<2x1x4xf32>) -> tensor<4611686018427387904x4xf32>
  return %d : tensor<4611686018427387904x4xf32>
}


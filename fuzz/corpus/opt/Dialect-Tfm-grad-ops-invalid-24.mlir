
func.func @dbias_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{a weight gradient must have shape [16] and element type 'f32', got 'tensor<32xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<32xf32>)
  return
}

//===----------------------------------------------------------------------===//
// tfm.rms_norm_grad
//===----------------------------------------------------------------------===//


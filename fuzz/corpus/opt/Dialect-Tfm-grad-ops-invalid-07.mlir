
func.func @bad_layout(%dy: tensor<8x2x48xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'weight_layout' [out_in, in_out]}}
  %0 = tfm.linear_grad_input %dy, %w weight_layout io : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.linear_grad_weight
//===----------------------------------------------------------------------===//


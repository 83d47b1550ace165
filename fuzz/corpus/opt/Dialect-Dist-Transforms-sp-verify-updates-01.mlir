
// A step without an optimizer (tfm-autodiff's output) updates nothing.
// CHECK-LABEL: func.func @gradients_only
tfm.param @w : tensor<8xf32> init zeros
func.func @gradients_only(%gw: tensor<8xf32>) -> (tensor<8xf32> {tfm.grad_of = @w}) {
  return %gw : tensor<8xf32>
}


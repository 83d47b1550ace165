
// The optimizer mark without any update: every gradient is missing one.
tfm.param @w : tensor<8xf32> init zeros
// expected-error @+1 {{'func.func' op never updates parameter @w, whose gradient it returns as result #0}}
func.func @train_step(%gw: tensor<8xf32>) -> (tensor<8xf32> {tfm.grad_of = @w})
    attributes {tfm.train_step, tfm.optimizer = #tfm.optimizer<sgd>} {
  return %gw : tensor<8xf32>
}



// The pass runs once: a second run would copy the copies.
// expected-error @+1 {{sp-recompute: the module is already recomputed (tfm.recompute = #tfm.recompute<full>)}}
module attributes {tfm.recompute = #tfm.recompute<full>} {
  func.func @train_step(%x: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
    %one = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
    return %x : tensor<f32>
  }
}

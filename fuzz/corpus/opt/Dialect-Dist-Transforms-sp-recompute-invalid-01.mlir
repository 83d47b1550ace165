
// A train step whose backward has no seed: nothing says where it begins.
module {
  // expected-error @+1 {{'func.func' op sp-recompute: the train step has no op marked tfm.backward_begins (the seed of its backward)}}
  func.func @train_step(%x: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
    return %x : tensor<f32>
  }
}


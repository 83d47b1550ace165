
// expected-error @+1 {{'func.func' op result #0: 'tfm.grad_of' must name a tfm.param (@name)}}
func.func @f(%x: tensor<f32>) -> (tensor<f32> {tfm.grad_of = "w"}) {
  return %x : tensor<f32>
}


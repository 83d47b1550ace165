
// expected-error @+1 {{'func.func' op argument #0 carries 'tfm.grad_of', which is not an argument attribute}}
func.func @f(%x: tensor<f32> {tfm.grad_of = @w}) {
  return
}



// expected-error @+1 {{layout axis names must be non-empty}}
func.func @empty_axis(%x: tensor<4xf32, #dist.layout<@mesh, "" = P>>) {
  return
}


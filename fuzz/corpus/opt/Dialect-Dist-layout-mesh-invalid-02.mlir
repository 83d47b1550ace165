
// expected-error @+1 {{expected '>'}}
func.func @entry_without_comma(%x: tensor<4xf32, #dist.layout<@mesh tp = P>>) {
  return
}


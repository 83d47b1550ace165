
func.func @fill_integer() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8xi64>'}}
  %0 = tfm.fill 0.0 : tensor<8xi64>
  return
}

//===----------------------------------------------------------------------===//
// tfm.embedding_grad
//===----------------------------------------------------------------------===//


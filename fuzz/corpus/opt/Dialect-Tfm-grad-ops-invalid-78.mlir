
func.func @dsumexp_shape(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>, %dse: tensor<16xf32>) {
  // expected-error @+1 {{max and dsumexp must have shape [8, 2]}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<8x2x64xf32>, tensor<8x2xf32>, tensor<16xf32> -> tensor<8x2x64xf32>
  return
}


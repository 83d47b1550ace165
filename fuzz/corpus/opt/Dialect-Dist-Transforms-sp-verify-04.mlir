
// A row-parallel GEMM that adds its bias to the partial products.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @proj.bias : tensor<8xf32> init zeros
func.func @bias_on_partial(%a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %b = tfm.get_param @proj.bias : tensor<8xf32>
  // expected-error @+1 {{operand #2 (from tfm.get_param) is R on mesh axis 'tp': a bias added to a partial product would be counted once per rank; add it after the reduction}}
  %p = tfm.linear %a, %w2, %b : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %p : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}



// Contracting features split over tp against a whole weight.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x4xf32> init normal(2.000000e-02)
func.func @contract_split_features(%a: tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w = tfm.get_param @proj.weight : tensor<8x4xf32>
  // expected-error @+1 {{'tfm.linear' op operand #1 (from tfm.get_param) is R on mesh axis 'tp': a GEMM whose input is split on its features needs the weight split on its input features (S(1))}}
  %p = tfm.linear %a, %w : (tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %p : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}


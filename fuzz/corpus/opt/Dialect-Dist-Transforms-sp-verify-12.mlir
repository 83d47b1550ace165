
// A parameter that cannot be split as declared.
dist.mesh @mesh ["tp" = 4]
// expected-error @+1 {{'tfm.param' op dimension 1 (6) cannot be split into 1 block(s) over 4 ranks of mesh axis 'tp'}}
tfm.param @w : tensor<8x6xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
func.func @indivisible_param() -> tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>> {
  %w = tfm.get_param @w : tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
  return %w : tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
}


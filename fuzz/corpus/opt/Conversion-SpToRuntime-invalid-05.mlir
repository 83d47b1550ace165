
// Layouts are read on the module's mesh: one naming another is not lowered.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<8x4xf32, #dist.layout<@grid, tp = S(1)>> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  // expected-error @+1 {{'tfm.get_param' op cannot be lowered: the layout of 'tensor<8x2xf32, #dist.layout<@grid, tp = S(1)>>' names mesh @grid but is used on mesh @mesh}}
  %w = tfm.get_param @w : tensor<8x2xf32, #dist.layout<@grid, tp = S(1)>>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x2xf32, #dist.layout<@grid, tp = S(1)>>) -> tensor<4x1x2xf32, #dist.layout<@grid, tp = S(2)>>
  %l = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x2xf32, #dist.layout<@grid, tp = S(2)>>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}




// The fused all_gather + linear is lowered along the leading dimension only.
dist.mesh @mesh ["tp" = 2]
tfm.param @x : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.get_param @x : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{'dist.all_gather_matmul' op is lowered along dimension 0 only, got dim 1}}
  %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 1 chunks 1 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %l = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<4x2x8xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}


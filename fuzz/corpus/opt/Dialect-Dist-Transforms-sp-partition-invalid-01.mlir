
// A batch of 3 cannot be split over dp = 2.
// expected-error @+1 {{'func.func' op cannot split the batch of argument #0 ('tensor<4x3x8xf32>') over dp = 2}}
func.func @batch(%x: tensor<4x3x8xf32>, %l: tensor<4x3xi64>) -> tensor<f32> {
  %y = tfm.cross_entropy %x, %l ignore_index -100 : (tensor<4x3x8xf32>, tensor<4x3xi64>) -> tensor<f32>
  return %y : tensor<f32>
}


// linear_grad_input: dx [16x2x32] = dy [16x2x64] x W: 2 * 32 * 64 * 32, in
// the backward.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 131072,
// CHECK-NEXT: "forward": 0,
func.func @f(%dy: tensor<16x2x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x2x32xf32> {
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %dx = tfm.linear_grad_input %dy, %w : (tensor<16x2x64xf32>, tensor<64x32xf32>) -> tensor<16x2x32xf32>
  return %dx : tensor<16x2x32xf32>
}


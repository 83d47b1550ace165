
// linear_grad_weight: dW [64x32] = dy^T x over 32 tokens: 2 * 32 * 64 * 32.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 131072,
func.func @f(%x: tensor<16x2x32xf32>, %dy: tensor<16x2x64xf32>) -> tensor<64x32xf32> {
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %dw = tfm.linear_grad_weight %x, %dy : (tensor<16x2x32xf32>, tensor<16x2x64xf32>) -> tensor<64x32xf32>
  return %dw : tensor<64x32xf32>
}


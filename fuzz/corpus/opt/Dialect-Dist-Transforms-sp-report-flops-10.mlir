
// A forward GEMM, its recomputed clone in the backward and a backward GEMM:
// recompute is a third of the step.
// CHECK-LABEL: "extra_flops_fraction": 0.33333
// CHECK-NEXT: "flops": {
// CHECK-NEXT: "backward": 131072,
// CHECK-NEXT: "forward": 131072,
// CHECK-NEXT: "recompute": 131072,
// CHECK-NEXT: "step": 393216
func.func @f(%x: tensor<16x2x32xf32>, %w: tensor<64x32xf32>) -> tensor<16x2x32xf32> {
  %y = tfm.linear %x, %w : (tensor<16x2x32xf32>, tensor<64x32xf32>) -> tensor<16x2x64xf32>
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %y2 = tfm.linear %x, %w {tfm.recomputed} : (tensor<16x2x32xf32>, tensor<64x32xf32>) -> tensor<16x2x64xf32>
  %dx = tfm.linear_grad_input %y2, %w : (tensor<16x2x64xf32>, tensor<64x32xf32>) -> tensor<16x2x32xf32>
  return %dx : tensor<16x2x32xf32>
}

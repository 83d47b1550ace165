
// Elementwise ops, norms and the loss count 0.
// CHECK-LABEL: "flops": {
// CHECK-NEXT: "backward": 0,
// CHECK-NEXT: "forward": 0,
// CHECK-NEXT: "recompute": 0,
// CHECK-NEXT: "step": 0
func.func @f(%x: tensor<16x2x32xf32>, %g: tensor<32xf32>) -> tensor<16x2x32xf32> {
  %a = tfm.gelu %x approximate none : tensor<16x2x32xf32>
  %b = tfm.rms_norm %a, %g eps 1.0e-5 : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32>
  %c = tfm.add %a, %b : tensor<16x2x32xf32>
  return %c : tensor<16x2x32xf32>
}


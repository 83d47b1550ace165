// RUN: sp-opt %s -tfm-precision | FileCheck %s --check-prefix=BF16
// RUN: sp-opt %s -tfm-precision="precision=fp16" | FileCheck %s --check-prefix=F16
// RUN: sp-opt %s -tfm-precision="precision=fp32" | FileCheck %s --check-prefix=F32
// RUN: not sp-opt %s -tfm-precision="precision=fp8" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not sp-opt %s -tfm-precision="precision=" 2>&1 | FileCheck %s --check-prefix=EMPTY

// tfm-precision retypes a model (bf16 by default): the parameters, every
// floating-point result of rank >= 1 and the function signatures take the
// precision; the scalar loss stays f32, integer tensors (token ids) keep
// their type, and the module records the precision.

// BF16: module attributes {tfm.precision = "bf16"}
// BF16: tfm.param @wte : tensor<16x8xbf16> init normal(2.000000e-02)
// BF16-NEXT: tfm.param @ln.weight : tensor<8xbf16> init ones
// BF16-LABEL: func.func @forward
// BF16-SAME: (%[[IDS:.*]]: tensor<4x1xi64>, %[[LABELS:.*]]: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward}
// BF16-NEXT: %[[E:.*]] = tfm.get_param @wte : tensor<16x8xbf16>
// BF16-NEXT: %[[X:.*]] = tfm.embedding %[[IDS]], %[[E]] : (tensor<4x1xi64>, tensor<16x8xbf16>) -> tensor<4x1x8xbf16>
// BF16-NEXT: %[[W:.*]] = tfm.get_param @ln.weight : tensor<8xbf16>
// BF16-NEXT: %[[N:.*]] = tfm.rms_norm %[[X]], %[[W]] eps {{.*}} : (tensor<4x1x8xbf16>, tensor<8xbf16>) -> tensor<4x1x8xbf16>
// BF16-NEXT: %[[A:.*]] = tfm.gelu %[[N]] approximate tanh : tensor<4x1x8xbf16>
// BF16-NEXT: %[[L:.*]] = tfm.linear %[[A]], %[[E]] : (tensor<4x1x8xbf16>, tensor<16x8xbf16>) -> tensor<4x1x16xbf16>
// BF16-NEXT: %[[LOSS:.*]] = tfm.cross_entropy %[[L]], %[[LABELS]] ignore_index -100 : (tensor<4x1x16xbf16>, tensor<4x1xi64>) -> tensor<f32>
// BF16-NEXT: return %[[LOSS]] : tensor<f32>
// A function's signature follows its body; rank-0 arguments stay f32.
// BF16-LABEL: func.func @helper
// BF16-SAME: (%{{.*}}: tensor<4x8xbf16>, %{{.*}}: tensor<f32>) -> tensor<4x8xbf16>
// BF16-NEXT: tfm.gelu %{{.*}} approximate tanh : tensor<4x8xbf16>
// A declaration has no body to retype: it is left alone.
// BF16: func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>

// F16: module attributes {tfm.precision = "f16"}
// F16: tfm.param @wte : tensor<16x8xf16>
// F16-NEXT: tfm.param @ln.weight : tensor<8xf16>
// F16: tfm.linear %{{.*}}, %{{.*}} : (tensor<4x1x8xf16>, tensor<16x8xf16>) -> tensor<4x1x16xf16>
// F16-NEXT: tfm.cross_entropy {{.*}} -> tensor<f32>
// F16: func.func @helper(%{{.*}}: tensor<4x8xf16>, %{{.*}}: tensor<f32>) -> tensor<4x8xf16>

// fp32 on an f32 model changes nothing but the record.
// F32: module attributes {tfm.precision = "f32"}
// F32-NOT: bf16
// F32-NOT: f16

// NAME: for the --precision option: Cannot find option named 'fp8'!
// EMPTY: for the --precision option: Cannot find option named ''!

tfm.param @wte : tensor<16x8xf32> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @wte : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  %n = tfm.rms_norm %x, %w eps 1.0e-05 : (tensor<4x1x8xf32>, tensor<8xf32>) -> tensor<4x1x8xf32>
  %a = tfm.gelu %n approximate tanh : tensor<4x1x8xf32>
  %logits = tfm.linear %a, %e : (tensor<4x1x8xf32>, tensor<16x8xf32>) -> tensor<4x1x16xf32>
  %loss = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<4x1x16xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
func.func @helper(%x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  %y = tfm.gelu %x approximate tanh : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>

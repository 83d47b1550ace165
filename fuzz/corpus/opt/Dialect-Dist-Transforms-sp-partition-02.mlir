
// A GEMM whose output is returned (no split consumer) stays whole: its
// weight is not split and no collective is inserted.
// TP-LABEL: func.func @lone_linear
// TP-SAME: (%[[X:[a-z0-9]+]]: tensor<4x2x8xf32>) -> tensor<4x2x6xf32>
// TP-NEXT: %[[W:[0-9]+]] = tfm.get_param @out.weight : tensor<6x8xf32>
// TP-NEXT: %[[Y:[0-9]+]] = tfm.linear %[[X]], %[[W]] : (tensor<4x2x8xf32>, tensor<6x8xf32>) -> tensor<4x2x6xf32>
// TP-NEXT: return %[[Y]]
// SP-LABEL: func.func @lone_linear
// SP-NOT: dist.
// SP: return
tfm.param @out.weight : tensor<6x8xf32> init normal(2.000000e-02)
func.func @lone_linear(%x: tensor<4x2x8xf32>) -> tensor<4x2x6xf32> {
  %w = tfm.get_param @out.weight : tensor<6x8xf32>
  %y = tfm.linear %x, %w : (tensor<4x2x8xf32>, tensor<6x8xf32>) -> tensor<4x2x6xf32>
  return %y : tensor<4x2x6xf32>
}

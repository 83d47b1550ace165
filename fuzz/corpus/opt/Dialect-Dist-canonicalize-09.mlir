
// The same axis name on two meshes: not the same ranks.
dist.mesh @a ["tp" = 2]
dist.mesh @b ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_slice_other_mesh
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @a["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @b["tp"] dim 0
// CHECK: return %[[G]]
func.func @gather_of_slice_other_mesh(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = dist.local_slice %x on @a["tp"] dim 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = dist.all_gather %0 on @b["tp"] dim 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}



dist.mesh @mesh ["tp" = 2]
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'dist.all_gather' op 'dist.workspace_offset' must be a non-negative i64 offset}}
  %g = dist.all_gather %x on @mesh["tp"] dim 1 {dist.workspace_offset = 64 : i32} : tensor<2x4xf32> -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}


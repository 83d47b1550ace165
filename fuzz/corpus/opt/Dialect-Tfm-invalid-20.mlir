
// Without a layout the result must be the whole parameter, even if its dims
// divide the parameter's.
tfm.param @p : tensor<4x8xf32> init zeros
func.func @shard_without_layout() {
  // expected-error @+1 {{result type 'tensor<4x4xf32>' is not a shard of the type of @p, 'tensor<4x8xf32>'}}
  %0 = tfm.get_param @p : tensor<4x4xf32>
  return
}


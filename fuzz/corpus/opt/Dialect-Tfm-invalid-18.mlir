
tfm.param @p : tensor<4x8xf32> init zeros
func.func @wrong_shape() {
  // expected-error @+1 {{result type 'tensor<8x4xf32>' is not a shard of the type of @p, 'tensor<4x8xf32>'}}
  %0 = tfm.get_param @p : tensor<8x4xf32>
  return
}


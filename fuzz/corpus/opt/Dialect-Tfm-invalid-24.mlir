
tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_rank() {
  // expected-error @+1 {{result type 'tensor<768xf32, #dist.layout<@mesh, tp = S(1)>>' is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<768xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}


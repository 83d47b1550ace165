
tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_other_layout() {
  // expected-error @+1 {{result type 'tensor<4x48xf32, #dist.layout<@mesh, tp = S(0)>>' is not a shard of the type of @p, 'tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>'}}
  %0 = tfm.get_param @p : tensor<4x48xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}


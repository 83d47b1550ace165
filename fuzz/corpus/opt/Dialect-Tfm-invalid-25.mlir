
tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_element() {
  // expected-error @+1 {{result type 'tensor<16x12xbf16, #dist.layout<@mesh, tp = S(1)>>' is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<16x12xbf16, #dist.layout<@mesh, tp = S(1)>>
  return
}



// A parameter shard of the wrong size for the mesh.
dist.mesh @mesh ["tp" = 4]
tfm.param @fc.weight : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @wrong_shard() -> tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  // expected-error @+1 {{'tfm.get_param' op the shard of @fc.weight must have 4 elements in dimension 0 on mesh @mesh, got 8}}
  %w = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %w : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
}


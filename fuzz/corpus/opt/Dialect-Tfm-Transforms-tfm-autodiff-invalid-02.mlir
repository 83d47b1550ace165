
// tfm-autodiff takes the module's one mesh (dist::getMesh), as every SPMD
// pass does: a second mesh is an error at it.
// CHECK: error: 'dist.mesh' op is a second mesh
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'dist.mesh' op is a second mesh, but the SPMD passes take a module with at most one (mesh @mesh is the first)}}
dist.mesh @grid ["tp" = 2]
tfm.param @emb : tensor<16x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %e = tfm.get_param @emb : tensor<16x8xf32>
  %x = tfm.embedding %ids, %e : (tensor<4x1xi64>, tensor<16x8xf32>) -> tensor<4x1x8xf32>
  %loss = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x8xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

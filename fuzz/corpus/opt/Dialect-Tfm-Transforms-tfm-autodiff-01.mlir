
// Data parallelism: the loss's mean over replicas scales the gradient, and
// every parameter gradient is partial over dp (a sum over this replica's
// tokens).
dist.mesh @mesh ["dp" = 2, "tp" = 1]
tfm.param @w : tensor<4x8xf32> init normal(2.000000e-02)
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh, dp = P>> {tfm.grad_of = @w}
func.func @forward(%ids: tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, %labels: tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %x = tfm.embedding %ids, %w : (tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<3x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
  %logits = tfm.linear %x, %w : (tensor<3x1x8xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x8xf32>) -> tensor<3x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %l = tfm.cross_entropy %logits, %labels ignore_index -100 : (tensor<3x1x4xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<3x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  %m = dist.all_reduce %l on @mesh["dp"] mean : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
  return %m : tensor<f32>
}
// CHECK: %[[ONE:.*]] = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
// CHECK: %[[HALF:.*]] = tfm.scale %[[ONE]] by 5.000000e-01 : tensor<f32>
// CHECK: tfm.cross_entropy_grad %{{.*}}, %{{.*}}, %[[HALF]]
// The tied read: the two gradients of @w are summed.
// CHECK: %[[G1:.*]] = tfm.linear_grad_weight {{.*}} -> tensor<4x8xf32, #dist.layout<@mesh, dp = P>>
// CHECK: %[[G2:.*]] = tfm.embedding_grad {{.*}} -> tensor<4x8xf32, #dist.layout<@mesh, dp = P>>
// CHECK: %[[G:.*]] = tfm.add %[[G1]], %[[G2]] : tensor<4x8xf32, #dist.layout<@mesh, dp = P>>
// CHECK: return %{{.*}}, %[[G]]

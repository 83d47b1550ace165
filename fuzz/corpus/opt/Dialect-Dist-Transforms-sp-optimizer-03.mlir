
// A distributed optimizer (tfm.zero from sp-sync-grads="zero=1"): w's
// gradient is a dp slice, so its sum is partial over dp and all-reduced;
// each replica updates its slice and the whole parameter is gathered back
// over dp after the updates, as the function reads it. c (not sharded) is
// updated whole and not gathered.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DW:[a-z0-9]+]]: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, %[[DC:[a-z0-9]+]]: tensor<3xf32>)
// SGD-SAME: attributes {tfm.optimizer = #tfm.optimizer<sgd>, tfm.train_step, tfm.zero}
// SGD: %[[S0:[0-9]+]] = tfm.sum_squares %[[DW]] : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
// SGD-NEXT: %[[S1:[0-9]+]] = tfm.sum_squares %[[DC]] : tensor<3xf32> -> tensor<f32>
// SGD-NEXT: %[[RED:[0-9]+]] = dist.all_reduce %[[S0]] on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// SGD-NEXT: %[[TOTAL:[0-9]+]] = tfm.add %[[RED]], %[[S1]] : tensor<f32>
// SGD-NEXT: %grad_clip = tfm.hyperparameter grad_clip default
// SGD-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[TOTAL]]
// SGD-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-01
// SGD-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 1.000000e-02
// SGD-NEXT: tfm.sgd_update @w, %[[DW]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<f32>
// SGD-NEXT: tfm.sgd_update @c, %[[DC]] scale %[[SCALE]]
// SGD-NEXT: dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xf32>
// SGD-NEXT: return %[[LOSS]], %[[NORM]], %[[DW]], %[[DC]] :
// ADAMW-LABEL: func.func @train_step
// ADAMW-SAME: attributes {tfm.optimizer = #tfm.optimizer<adamw>, tfm.train_step, tfm.zero}
// ADAMW: tfm.adamw_update @w
// ADAMW-NEXT: tfm.adamw_update @c
// ADAMW-NEXT: dist.all_gather_param @w on @mesh["dp"] : tensor<4x8xf32>
// ADAMW-NOT: all_gather_param
dist.mesh @mesh ["dp" = 2, "tp" = 1] roles [data, tensor]
tfm.param @w : tensor<4x8xf32> init ones
tfm.param @c : tensor<3xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, %dc: tensor<3xf32>)
    -> (tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> {tfm.grad_of = @w}, tensor<3xf32> {tfm.grad_of = @c}) attributes {tfm.train_step, tfm.zero} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %c = tfm.get_param @c : tensor<3xf32>
  return %loss, %dw, %dc : tensor<f32>, tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, tensor<3xf32>
}

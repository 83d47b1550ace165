
// tp=2: the column (S(1)) and row (S(0)) weight gradients give sums of
// squares partial over tp, accumulated together and all-reduced once; the
// norm weight's (whole) sum is added after.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DFC:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, %[[DPROJ:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[DLN:[a-z0-9]+]]: tensor<8xf32>)
// SGD: %[[S0:[0-9]+]] = tfm.sum_squares %[[DFC]] : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<f32, #dist.layout<@mesh, tp = P>>
// SGD-NEXT: %[[S1:[0-9]+]] = tfm.sum_squares %[[DPROJ]] : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<f32, #dist.layout<@mesh, tp = P>>
// SGD-NEXT: %[[PART:[0-9]+]] = tfm.add %[[S0]], %[[S1]] : tensor<f32, #dist.layout<@mesh, tp = P>>
// SGD-NEXT: %[[WHOLE:[0-9]+]] = tfm.sum_squares %[[DLN]] : tensor<8xf32> -> tensor<f32>
// SGD-NEXT: %[[RED:[0-9]+]] = dist.all_reduce %[[PART]] on @mesh["tp"] sum : tensor<f32, #dist.layout<@mesh, tp = P>> -> tensor<f32>
// SGD-NEXT: %[[TOTAL:[0-9]+]] = tfm.add %[[RED]], %[[WHOLE]] : tensor<f32>
// SGD-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 0.000000e+00
// SGD-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[TOTAL]] max_norm %grad_clip
// SGD-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-01
// SGD-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 1.000000e-02
// SGD-NEXT: tfm.sgd_update @fc.weight, %[[DFC]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
// SGD-NEXT: tfm.sgd_update @proj.weight, %[[DPROJ]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<f32>
// SGD-NEXT: tfm.sgd_update @ln.weight, %[[DLN]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
// SGD-NEXT: return %[[LOSS]], %[[NORM]], %[[DFC]], %[[DPROJ]], %[[DLN]] :
// ADAMW-LABEL: func.func @train_step
// ADAMW: %[[RED:[0-9]+]] = dist.all_reduce %{{[0-9]+}} on @mesh["tp"] sum : tensor<f32, #dist.layout<@mesh, tp = P>> -> tensor<f32>
// ADAMW-NEXT: %[[TOTAL:[0-9]+]] = tfm.add %[[RED]], %{{[0-9]+}} : tensor<f32>
// ADAMW-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 1.000000e+00
// ADAMW-NEXT: %[[SCALE:[a-z0-9_]+]], %{{[a-z0-9_]+}} = tfm.clip_scale %[[TOTAL]] max_norm %grad_clip
// ADAMW-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-03
// ADAMW-NEXT: %beta1 = tfm.hyperparameter beta1 default
// ADAMW-NEXT: %beta2 = tfm.hyperparameter beta2 default
// ADAMW-NEXT: %eps = tfm.hyperparameter eps default
// ADAMW-NEXT: %weight_decay = tfm.hyperparameter weight_decay default
// ADAMW-NEXT: tfm.adamw_update @fc.weight, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr {{.*}} : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
// ADAMW-NEXT: tfm.adamw_update @proj.weight, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr {{.*}} : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<f32>
// ADAMW-NEXT: tfm.adamw_update @ln.weight, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr {{.*}} : tensor<8xf32>, tensor<f32>
// ADAMW-NEXT: return
// ADAMW-NOT: dist.all_reduce
dist.mesh @mesh ["tp" = 2] roles [tensor]
tfm.param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dfc: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, %dproj: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dln: tensor<8xf32>)
    -> (tensor<f32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {tfm.grad_of = @fc.weight}, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> {tfm.grad_of = @proj.weight}, tensor<8xf32> {tfm.grad_of = @ln.weight}) attributes {tfm.train_step} {
  %fc = tfm.get_param @fc.weight : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  %proj = tfm.get_param @proj.weight : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %ln = tfm.get_param @ln.weight : tensor<8xf32>
  return %loss, %dfc, %dproj, %dln : tensor<f32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>
}


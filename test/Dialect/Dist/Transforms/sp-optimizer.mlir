// RUN: sp-opt %s -split-input-file -sp-optimizer="optimizer=sgd lr=0.1 weight-decay=0.01" | FileCheck %s --check-prefix=SGD
// RUN: sp-opt %s -split-input-file -sp-optimizer="optimizer=adamw lr=0.001 grad-clip=1.0" | FileCheck %s --check-prefix=ADAMW

// sp-optimizer on hand-written train steps (loss, grad...): it appends the
// global gradient norm (sums of squares, grouped by layout, split groups
// all-reduced once), the clip scale, one update per parameter and, with a
// distributed optimizer, the gather of each sharded parameter; the norm
// becomes the second result and the step is marked tfm.optimizer.

// Single device: both gradients are whole, one sum.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DW:[a-z0-9]+]]: tensor<4x8xf32>, %[[DB:[a-z0-9]+]]: tensor<8xf32>)
// SGD-SAME: -> (tensor<f32>, tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @b}) attributes {tfm.optimizer = #tfm.optimizer<sgd>, tfm.train_step}
// SGD: %[[SUM:[0-9]+]] = tfm.sum_squares %[[DW]], %[[DB]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<f32>
// SGD-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 0.000000e+00
// SGD-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[SUM]] max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
// SGD-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-01
// SGD-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 1.000000e-02
// SGD-NEXT: tfm.sgd_update @w, %[[DW]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<4x8xf32>, tensor<f32>
// SGD-NEXT: tfm.sgd_update @b, %[[DB]] scale %[[SCALE]] lr %lr weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
// SGD-NEXT: return %[[LOSS]], %[[NORM]], %[[DW]], %[[DB]] : tensor<f32>, tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
// ADAMW-LABEL: func.func @train_step
// ADAMW-SAME: attributes {tfm.optimizer = #tfm.optimizer<adamw>, tfm.train_step}
// ADAMW: %[[SUM:[0-9]+]] = tfm.sum_squares
// ADAMW-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 1.000000e+00
// ADAMW-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[SUM]] max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
// ADAMW-NEXT: %lr = tfm.hyperparameter lr default 1.000000e-03
// ADAMW-NEXT: %beta1 = tfm.hyperparameter beta1 default 9.000000e-01
// ADAMW-NEXT: %beta2 = tfm.hyperparameter beta2 default 0.99899999999999999
// ADAMW-NEXT: %eps = tfm.hyperparameter eps default 1.000000e-08
// ADAMW-NEXT: %weight_decay = tfm.hyperparameter weight_decay default 0.000000e+00
// ADAMW-NEXT: tfm.adamw_update @w, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<4x8xf32>, tensor<f32>
// ADAMW-NEXT: tfm.adamw_update @b, %{{[a-z0-9]+}} scale %[[SCALE]] lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8xf32>, tensor<f32>
// ADAMW-NEXT: return %{{[a-z0-9]+}}, %[[NORM]],
tfm.param @w : tensor<4x8xf32> init ones
tfm.param @b : tensor<8xf32> init zeros
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4x8xf32>, %db: tensor<8xf32>)
    -> (tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @w}, tensor<8xf32> {tfm.grad_of = @b}) attributes {tfm.train_step} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %b = tfm.get_param @b : tensor<8xf32>
  return %loss, %dw, %db : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
}

// -----

// tp=2: the column (S(1)) and row (S(0)) weight gradients give one sum of
// squares partial over tp, all-reduced once; the norm weight's (whole) sum
// is added after.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DFC:[a-z0-9]+]]: tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, %[[DPROJ:[a-z0-9]+]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[DLN:[a-z0-9]+]]: tensor<8xf32>)
// SGD: %[[PART:[0-9]+]] = tfm.sum_squares %[[DFC]], %[[DPROJ]] : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<f32, #dist.layout<@mesh, tp = P>>
// SGD-NEXT: %[[RED:[0-9]+]] = dist.all_reduce %[[PART]] on @mesh["tp"] sum : tensor<f32, #dist.layout<@mesh, tp = P>> -> tensor<f32>
// SGD-NEXT: %[[WHOLE:[0-9]+]] = tfm.sum_squares %[[DLN]] : tensor<8xf32> -> tensor<f32>
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
// ADAMW-NEXT: tfm.sum_squares
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

// -----

// A tie group: one gradient for two parameters counts once in the norm and
// updates each parameter.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DT:[a-z0-9]+]]: tensor<16x8xf32>)
// SGD: %[[SQ:[0-9]+]] = tfm.sum_squares %[[DT]] : tensor<16x8xf32> -> tensor<f32>
// SGD-NEXT: %grad_clip = tfm.hyperparameter grad_clip default 0.000000e+00
// SGD-NEXT: %[[SCALE:[a-z0-9_]+]], %[[NORM:[a-z0-9_]+]] = tfm.clip_scale %[[SQ]] max_norm %grad_clip
// SGD-NEXT: %lr = tfm.hyperparameter lr default
// SGD-NEXT: %weight_decay = tfm.hyperparameter weight_decay default
// SGD-NEXT: tfm.sgd_update @wte, %[[DT]] scale %[[SCALE]]
// SGD-NEXT: tfm.sgd_update @head, %[[DT]] scale %[[SCALE]]
// SGD-NEXT: return %[[LOSS]], %[[NORM]], %[[DT]], %[[DT]] :
// ADAMW-LABEL: func.func @train_step
// ADAMW-COUNT-1: tfm.sum_squares
// ADAMW-NOT: tfm.sum_squares
// ADAMW: tfm.adamw_update @wte
// ADAMW-NEXT: tfm.adamw_update @head
tfm.param @wte : tensor<16x8xf32> init ones
tfm.param @head : tensor<16x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dtied: tensor<16x8xf32>)
    -> (tensor<f32>, tensor<16x8xf32> {tfm.grad_of = @wte}, tensor<16x8xf32> {tfm.grad_of = @head}) attributes {tfm.train_step} {
  %wte = tfm.get_param @wte : tensor<16x8xf32>
  %head = tfm.get_param @head : tensor<16x8xf32>
  return %loss, %dtied, %dtied : tensor<f32>, tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// A distributed optimizer (tfm.zero from sp-sync-grads="zero=1"): w's
// gradient is a dp slice, so its sum is partial over dp and all-reduced;
// each replica updates its slice and the whole parameter is gathered back
// over dp after the updates, as the function reads it. c (not sharded) is
// updated whole and not gathered.
// SGD-LABEL: func.func @train_step
// SGD-SAME: (%[[LOSS:[a-z0-9]+]]: tensor<f32>, %[[DW:[a-z0-9]+]]: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>, %[[DC:[a-z0-9]+]]: tensor<3xf32>)
// SGD-SAME: attributes {tfm.optimizer = #tfm.optimizer<sgd>, tfm.train_step, tfm.zero}
// SGD: %[[S0:[0-9]+]] = tfm.sum_squares %[[DW]] : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
// SGD-NEXT: %[[RED:[0-9]+]] = dist.all_reduce %[[S0]] on @mesh["dp"] sum : tensor<f32, #dist.layout<@mesh, dp = P>> -> tensor<f32>
// SGD-NEXT: %[[S1:[0-9]+]] = tfm.sum_squares %[[DC]] : tensor<3xf32> -> tensor<f32>
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

// -----

// A loss-scaled backward (its seed, tfm.backward_begins, is the loss scale):
// the clip scale reads the same loss scale, to divide it out of the norm and
// the update.
// SGD-LABEL: func.func @train_step
// SGD: %loss_scale = tfm.hyperparameter loss_scale default 6.553600e+04
// SGD-NEXT: tfm.fill 1.000000e+00 times %loss_scale {tfm.backward_begins} : tensor<f32>
// SGD: %grad_clip = tfm.hyperparameter grad_clip default 0.000000e+00
// SGD-NEXT: %[[SCALE:[a-z0-9_]+]], %{{[a-z0-9_]+}} = tfm.clip_scale %{{[0-9]+}} max_norm %grad_clip loss_scale %loss_scale : tensor<f32> -> tensor<f32>, tensor<f32>
// SGD: tfm.sgd_update @w, %{{.*}} scale %[[SCALE]]
// ADAMW-LABEL: func.func @train_step
// ADAMW: tfm.clip_scale %{{[0-9]+}} max_norm %grad_clip loss_scale %loss_scale : tensor<f32> -> tensor<f32>, tensor<f32>
// ADAMW: tfm.adamw_update @w
tfm.param @w : tensor<4x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4x8xf32>)
    -> (tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %s = tfm.hyperparameter loss_scale default 65536.0
  %seed = tfm.fill 1.0 times %s {tfm.backward_begins} : tensor<f32>
  return %loss, %dw : tensor<f32>, tensor<4x8xf32>
}

// -----

// Only the seed says whether the backward is loss-scaled: another fill
// reading the loss scale (not the seed) leaves the clip scale alone.
// SGD-LABEL: func.func @train_step
// SGD: tfm.clip_scale %{{[0-9]+}} max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
// ADAMW-LABEL: func.func @train_step
// ADAMW: tfm.clip_scale %{{[0-9]+}} max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f32>
tfm.param @w : tensor<4x8xf32> init ones
func.func @train_step(%loss: tensor<f32>, %dw: tensor<4x8xf32>)
    -> (tensor<f32>, tensor<4x8xf32> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %w = tfm.get_param @w : tensor<4x8xf32>
  %seed = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
  %s = tfm.hyperparameter loss_scale default 65536.0
  %other = tfm.fill 1.0 times %s : tensor<f32>
  return %loss, %dw : tensor<f32>, tensor<4x8xf32>
}

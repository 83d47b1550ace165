
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


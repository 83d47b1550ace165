
// expected-error @+1 {{ones init takes no standard deviation}}
tfm.param @p : tensor<4xf32> init ones(1.0)


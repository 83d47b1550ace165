
// expected-error @+1 {{zeros init takes no standard deviation}}
tfm.param @p : tensor<4xf32> init zeros(0.02)



// expected-error @+1 {{normal init needs a standard deviation}}
tfm.param @p : tensor<4xf32> init normal


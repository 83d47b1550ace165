
// expected-error @+1 {{tie group name must not be empty}}
tfm.param @p : tensor<4xf32> init zeros tie ""


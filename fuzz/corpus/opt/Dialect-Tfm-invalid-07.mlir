
// expected-error @+1 {{normal init standard deviation must be > 0, got -2.000000e-02}}
tfm.param @p : tensor<4xf32> init normal(-0.02)



// expected-error @+1 {{attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
tfm.param @p : tensor<4xf64> init zeros


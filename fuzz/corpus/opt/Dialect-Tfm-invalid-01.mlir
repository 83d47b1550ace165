
// expected-error @+1 {{parameter shape must be static and positive, got 'tensor<4x0xf32>'}}
tfm.param @p : tensor<4x0xf32> init zeros


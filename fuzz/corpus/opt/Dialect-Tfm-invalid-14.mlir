
tfm.param @a : tensor<4x8xf32> init normal(0.02) tie "wte"
// expected-error @+1 {{tie group 'wte' mixes parameters of different type or init}}
tfm.param @b : tensor<4x8xf32> init normal(0.01) tie "wte"


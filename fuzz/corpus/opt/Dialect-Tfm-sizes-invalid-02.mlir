
// The largest bf16 parameter, 2^63 - 2 bytes, is accepted.
tfm.param @w : tensor<4611686018427387903xbf16> init zeros



// 2^62 bf16 elements count fine but are 2^63 bytes.
// expected-error @+1 {{'tfm.param' op type has shape [4611686018427387904] of 'bf16', whose size in bytes overflows int64}}
tfm.param @w : tensor<4611686018427387904xbf16> init zeros


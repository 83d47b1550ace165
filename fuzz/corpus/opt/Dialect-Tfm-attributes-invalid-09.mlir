
// expected-error @+1 {{'tfm.fill' op 'dist.arena_offsets' must be an array<i64> of one offset per result (1)}}
%0 = tfm.fill 0.0 {dist.arena_offsets = array<i64: 0, 64>} : tensor<f32>


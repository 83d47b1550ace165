
// expected-error @+1 {{'tfm.fill' op 'tfm.recomputed' must be a unit attribute}}
%0 = tfm.fill 0.0 {tfm.recomputed = 1} : tensor<f32>

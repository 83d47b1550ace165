
// expected-error @+1 {{'tfm.fill' op carries 'tfm.zero', which belongs on a function}}
%0 = tfm.fill 0.0 {tfm.zero} : tensor<f32>



// expected-error @+1 {{'dist.mesh' op role 'tensor' is given to more than one axis}}
dist.mesh @m ["a" = 2, "b" = 4] roles [tensor, tensor]


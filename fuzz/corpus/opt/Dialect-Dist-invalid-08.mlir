
// expected-error @+1 {{'dist.mesh' op has 1 roles for 2 axes}}
dist.mesh @m ["dp" = 2, "tp" = 4] roles [data]


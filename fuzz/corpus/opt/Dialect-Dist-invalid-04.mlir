
// expected-error @+1 {{axis 'dp' must have size >= 1, got -2}}
dist.mesh @m ["dp" = -2]


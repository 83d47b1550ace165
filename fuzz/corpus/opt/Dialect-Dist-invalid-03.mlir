
// expected-error @+1 {{axis 'tp' must have size >= 1, got 0}}
dist.mesh @m ["dp" = 2, "tp" = 0]


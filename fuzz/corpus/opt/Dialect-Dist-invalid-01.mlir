
// expected-error @+1 {{axis names must be non-empty}}
dist.mesh @m ["dp" = 2, "" = 4]


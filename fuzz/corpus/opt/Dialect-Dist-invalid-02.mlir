
// expected-error @+1 {{axis 'tp' appears twice}}
dist.mesh @m ["tp" = 2, "dp" = 2, "tp" = 4]



// expected-error @+1 {{expected string}}
dist.mesh @m [dp = 2]


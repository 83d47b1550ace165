
// sp-report takes the module's one mesh (dist::getMesh).
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'dist.mesh' op is a second mesh, but the SPMD passes take a module with at most one (mesh @mesh is the first)}}
dist.mesh @grid ["tp" = 2]

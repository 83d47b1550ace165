
// The same for a parameter's declared layout.
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'tfm.param' op layout names mesh @grid but is used on mesh @mesh}}
tfm.param @w : tensor<8x8xf32, #dist.layout<@grid, tp = S(0)>> init normal(2.000000e-02)
func.func @param_other_mesh() {
  return
}


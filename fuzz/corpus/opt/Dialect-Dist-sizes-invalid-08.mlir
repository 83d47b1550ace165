
// The type an all_gather_param gathers into.
dist.mesh @mesh ["dp" = 2]
tfm.param @w : tensor<8xf32> init zeros
func.func @param() {
  // expected-error @+1 {{'dist.all_gather_param' op type has shape [9223372036854775807, 2], whose element count overflows int64}}
  dist.all_gather_param @w on @mesh["dp"] : tensor<9223372036854775807x2xf32>
  return
}

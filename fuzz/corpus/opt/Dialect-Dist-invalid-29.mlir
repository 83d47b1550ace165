
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_split_beyond_rank() {
  // expected-error @+1 {{layout of result #0 splits dimension 5 of a rank-2 tensor on axis 'tp'}}
  %0 = dist.recv on @mesh["tp"] offset 1 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(5)>>
  return
}


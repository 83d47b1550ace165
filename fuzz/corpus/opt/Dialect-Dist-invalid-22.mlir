
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @axis_missing(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{axis 'cp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.all_reduce %x on @mesh["cp"] sum : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}



dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @recv_axis_missing() {
  // expected-error @+1 {{axis 'pp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.recv on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}


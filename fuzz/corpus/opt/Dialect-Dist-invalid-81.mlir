
dist.mesh @mesh ["pp" = 4]
func.func @recv_offset_zero() {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 0}}
  %0 = dist.recv on @mesh["pp"] offset 0 : tensor<8x8xf32>
  return
}


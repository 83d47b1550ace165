
dist.mesh @mesh ["pp" = 4]
func.func @recv_offset_too_large() {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 7}}
  %0 = dist.recv on @mesh["pp"] offset 7 : tensor<8x8xf32>
  return
}



dist.mesh @mesh ["pp" = 4]
func.func @recv_offset_too_small() {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got -5}}
  %0 = dist.recv on @mesh["pp"] offset -5 : tensor<8x8xf32>
  return
}


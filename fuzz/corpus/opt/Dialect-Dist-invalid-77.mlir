
dist.mesh @mesh ["pp" = 4]
func.func @send_offset_too_large(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 4}}
  dist.send %x on @mesh["pp"] offset 4 : tensor<8x8xf32>
  return
}


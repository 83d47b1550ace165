
// On an axis of size 1 there is no neighbour to talk to.
dist.mesh @mesh ["pp" = 1]
func.func @send_size_one(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{offset must be non-zero and within (-1, 1) for axis 'pp', got 1}}
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}


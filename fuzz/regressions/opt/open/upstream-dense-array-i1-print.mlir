func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tfm.silu %x {dist.arena_offsets = array<i01: 0>} : tensor<4xf32>
  return %a : tensor<4xf32>
}


dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_split_beyond_rank(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = S(2), tp = P>>) {
  // expected-error @+1 {{layout of operand #0 splits dimension 2 of a rank-2 tensor on axis 'dp'}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, dp = S(2), tp = P>> -> tensor<8x8xf32, #dist.layout<@mesh, dp = S(2)>>
  return
}



dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @float64(%x: tensor<8x2xf64>) {
  // expected-error @+1 {{operand #0 must be variadic of ranked tensor of 32-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf64>'}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf64>) -> tensor<8x2xf64>
  return
}

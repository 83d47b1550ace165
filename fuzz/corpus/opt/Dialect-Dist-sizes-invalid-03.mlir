
// A collective on a tensor whose element count overflows int64.
dist.mesh @mesh ["tp" = 2]
func.func @elements(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{'dist.all_reduce' op operand #0 has shape [4294967296, 4294967296], whose element count overflows int64}}
  %y = dist.all_reduce %x on @mesh["tp"] sum : tensor<4294967296x4294967296xf32> -> tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}


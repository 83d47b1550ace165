
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xi32>) {
  // expected-error @+1 {{element type changes from 'i32' to 'i64'}}
  %0 = dist.all_reduce %x on @mesh["tp"] max : tensor<8x8xi32> -> tensor<8x8xi64>
  return
}



dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xi64>) {
  // expected-error @+1 {{element type changes from 'i64' to 'i32'}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xi64> -> tensor<2x8xi32>
  return
}


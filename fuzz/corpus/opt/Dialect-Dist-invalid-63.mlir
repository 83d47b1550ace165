
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xbf16>) {
  // expected-error @+1 {{element type changes from 'bf16' to 'f32'}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xbf16> -> tensor<32x2xf32>
  return
}


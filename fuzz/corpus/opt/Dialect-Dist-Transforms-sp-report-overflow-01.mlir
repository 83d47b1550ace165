
// Two all-reduces of 2^62 bytes each send 2^62; together 2^63.
dist.mesh @mesh ["tp" = 2]
func.func @total(%x: tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>, %w: tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>) {
  %a = dist.all_reduce %x on @mesh["tp"] sum : tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>> -> tensor<1152921504606846976xf32>
  // expected-error @+1 {{'dist.all_reduce' op the communication report overflows int64 bytes at this op}}
  %b = dist.all_reduce %w on @mesh["tp"] sum : tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>> -> tensor<1152921504606846976xf32>
  return %a, %b : tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>
}


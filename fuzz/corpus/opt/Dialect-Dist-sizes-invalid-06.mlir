
// The result of a gather: the shard's dimension times the axis size is past
// int64 (the expected result shape cannot even be formed).
dist.mesh @mesh ["tp" = 16]
func.func @gathered_dim(%x: tensor<1152921504606846976xf16>) -> tensor<1152921504606846976xf16> {
  // expected-error @+1 {{'dist.all_gather' op dimension 0 (1152921504606846976) times the size of axis 'tp' (16) overflows int64}}
  %y = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<1152921504606846976xf16> -> tensor<1152921504606846976xf16>
  return %y : tensor<1152921504606846976xf16>
}


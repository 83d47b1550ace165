
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bad_kind(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, mean]}}
  %0 = dist.all_reduce %x on @mesh["tp"] prod : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_to_all
//===----------------------------------------------------------------------===//



// Every member is compared with the earlier ones, so a third member that
// disagrees is caught even when the first two agree.
tfm.param @a : tensor<4xf32> init ones tie "g"
tfm.param @b : tensor<4xf32> init ones tie "g"
tfm.param @other : tensor<8xf32> init ones tie "h"
// expected-error @+1 {{tie group 'g' mixes parameters of different type or init: @a is 'tensor<4xf32>'}}
tfm.param @c : tensor<4xf32> init zeros tie "g"

//===----------------------------------------------------------------------===//
// tfm.get_param
//===----------------------------------------------------------------------===//


// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One case per constraint of dist.all_gather_param.

dist.mesh @mesh ["dp" = 2, "cp" = 2] roles [data, context]
tfm.param @w : tensor<8xf32> init ones
func.func @not_divisible() {
  // expected-error @+1 {{'dist.all_gather_param' op the first dimension of 'tensor<3xf32>' is not divisible by the size of axis 'cp' (2)}}
  dist.all_gather_param @w on @mesh["cp"] within "dp" : tensor<3xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "cp" = 2] roles [data, context]
tfm.param @w : tensor<8xf32> init ones
func.func @within_itself() {
  // expected-error @+1 {{'dist.all_gather_param' op gathers over axis 'cp' within the blocks of the same axis}}
  dist.all_gather_param @w on @mesh["cp"] within "cp" : tensor<4xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "cp" = 2] roles [data, context]
tfm.param @w : tensor<8xf32> init ones
func.func @within_unknown() {
  // expected-error @+1 {{'dist.all_gather_param' op 'within' axis 'pp' is not an axis of mesh @mesh}}
  dist.all_gather_param @w on @mesh["cp"] within "pp" : tensor<4xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "cp" = 2] roles [data, context]
func.func @no_param() {
  // expected-error @+1 {{'dist.all_gather_param' op @w does not name a tfm.param}}
  dist.all_gather_param @w on @mesh["dp"] : tensor<4xf32>
  return
}

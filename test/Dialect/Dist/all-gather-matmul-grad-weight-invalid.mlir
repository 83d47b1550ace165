// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of dist.all_gather_matmul_grad_weight; the
// round trip is in all-gather-matmul-grad-weight.mlir.

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_axis(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{axis 'pp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["pp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_is_last(%x: tensor<2x2x8xf32>, %dy: tensor<2x2x6xf32>) {
  // expected-error @+1 {{dim 2 is out of range for a rank-2 tensor}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 2 chunks 1 : (tensor<2x2x8xf32>, tensor<2x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_do_not_divide(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{chunks (3) must be >= 1 and divide the input's gathered dimension (2)}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 3 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_dy(%x: tensor<2x2x8xf32>) {
  // expected-error @+1 {{needs at least one dy and one result per dy, got 0 and 0}}
  dist.all_gather_matmul_grad_weight %x, on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>) -> ()
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @fewer_results(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{needs at least one dy and one result per dy, got 2 and 1}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dy_not_gathered(%x: tensor<2x2x8xf32>, %dy: tensor<2x2x6xf32>) {
  // expected-error @+1 {{dy 0 must have shape [8, 2, out] (the gathered input's but for its last dimension), got 'tensor<2x2x6xf32>'}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<2x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dy_element(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xi32>) {
  // expected-error @+1 {{dy 0 element type must be f32, bf16 or f16, got 'i32'}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xi32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_out_in(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>, %dz: tensor<8x2x3xf32>) {
  // expected-error @+1 {{result 1 must have shape [3, 8], got 'tensor<8x3xf32>'}}
  %0:2 = dist.all_gather_matmul_grad_weight %x, %dy, %dz on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x2x6xf32>, tensor<8x2x3xf32>) -> (tensor<6x8xf32>, tensor<8x3xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_in_out(%x: tensor<2x2x8xf32>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{result 0 must have shape [8, 6], got 'tensor<6x8xf32>'}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @input_not_split(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{input must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x2x6xf32>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dy_partial(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dy: tensor<8x2x6xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{dy 0 must not be P on axis 'tp': it has the gathered rows}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x2x6xf32, #dist.layout<@mesh, tp = P>>) -> tensor<6x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dy_split_like_the_input(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %dy: tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{dy 0 must not be S(0) on axis 'tp': it has the gathered rows}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<6x8xf32>
  return
}

// -----

// The dys share one element type (the runtime takes one dtype for all).
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dys_one_type(%x: tensor<2x2x8xbf16>, %dy: tensor<8x2x6xbf16>, %dz: tensor<8x2x3xf16>) {
  // expected-error @+1 {{dy 1 element type 'f16' differs from dy 0's 'bf16'}}
  %0:2 = dist.all_gather_matmul_grad_weight %x, %dy, %dz on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xbf16>, tensor<8x2x6xbf16>, tensor<8x2x3xf16>) -> (tensor<6x8xf32>, tensor<3x8xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_element(%x: tensor<2x2x8xbf16>, %dy: tensor<8x2x6xf32>) {
  // expected-error @+1 {{result 0 element type must be f32, bf16 or f16, got 'i64'}}
  %0 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xbf16>, tensor<8x2x6xf32>) -> tensor<6x8xi64>
  return
}

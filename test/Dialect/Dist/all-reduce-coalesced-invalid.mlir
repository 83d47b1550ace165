// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of dist.all_reduce_coalesced; the round trip is
// in all-reduce-coalesced.mlir.

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_operands() {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 0 and 0}}
  dist.all_reduce_coalesced on @mesh["dp"] sum : () -> ()
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @fewer_results(%x: tensor<8x2xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 2 and 1}}
  %0 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<4xf32>) -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @more_results(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 1 and 2}}
  %0:2 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @no_results(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{needs at least one operand and one result per operand, got 1 and 0}}
  dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf32>) -> ()
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @shape_changes(%x: tensor<8x2xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{result shape must be [4] for axis 'tp' of size 4, got 'tensor<1xf32>'}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["tp"] sum : (tensor<8x2xf32>, tensor<4xf32>) -> (tensor<8x2xf32>, tensor<1xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @results_swapped(%x: tensor<8x2xf32>, %y: tensor<2x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 2] for axis 'dp' of size 2, got 'tensor<2x8xf32>'}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8x2xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x2xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'bf16'}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32>, tensor<4xf32>) -> (tensor<8x2xf32>, tensor<4xbf16>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_replicated(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, %y: tensor<4xf32, #dist.layout<@mesh, dp = P>>) {
  // expected-error @+1 {{result must be R on axis 'dp', its layout is #dist.layout<@mesh, dp = P>}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, tensor<4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8x2xf32>, tensor<4xf32, #dist.layout<@mesh, dp = P>>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_split(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>) {
  // expected-error @+1 {{result must be R on axis 'dp', its layout is #dist.layout<@mesh, dp = S(0)>}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>) -> tensor<8x2xf32, #dist.layout<@mesh, dp = S(0)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_partial(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, %y: tensor<4xf32, #dist.layout<@mesh, dp = S(0)>>) {
  // expected-error @+1 {{operand must be P on axis 'dp', its layout is #dist.layout<@mesh, dp = S(0)>}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, tensor<4xf32, #dist.layout<@mesh, dp = S(0)>>) -> (tensor<8x2xf32>, tensor<4xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_operand(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{operand must be P on axis 'dp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf32>) -> tensor<8x2xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>) {
  // expected-error @+1 {{layouts on axes other than 'dp' must not change: #dist.layout<@mesh, dp = P, tp = S(0)> vs #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<16x32xf32, #dist.layout<@mesh, dp = P, tp = S(0)>>) -> tensor<16x32xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @axis_missing(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{axis 'cp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.all_reduce_coalesced %x on @mesh["cp"] sum : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return
}

// -----

func.func @not_a_mesh(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{'nomesh' does not name a dist.mesh}}
  %0 = dist.all_reduce_coalesced %x on @nomesh["dp"] sum : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @layout_axis_missing(%x: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, %y: tensor<4xf32, #dist.layout<@mesh, cp = S(0), dp = P>>) {
  // expected-error @+1 {{layout of operand #1 names axis 'cp' that mesh @mesh does not have}}
  %0:2 = dist.all_reduce_coalesced %x, %y on @mesh["dp"] sum : (tensor<8x2xf32, #dist.layout<@mesh, dp = P>>, tensor<4xf32, #dist.layout<@mesh, cp = S(0), dp = P>>) -> (tensor<8x2xf32>, tensor<4xf32, #dist.layout<@mesh, cp = S(0)>>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bad_kind(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, mean]}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] prod : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @float64(%x: tensor<8x2xf64>) {
  // expected-error @+1 {{operand #0 must be variadic of ranked tensor of 32-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf64>'}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum : (tensor<8x2xf64>) -> tensor<8x2xf64>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @async_max(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{is async, which reduces by a sum only, got max}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] max async : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @async_unread(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{is async but no op reads its results: it would never complete}}
  %0 = dist.all_reduce_coalesced %x on @mesh["dp"] sum async : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @async_scatter_unread(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{is async but no op reads its results: it would never complete}}
  %0 = dist.reduce_scatter_coalesced %x on @mesh["dp"] async : (tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

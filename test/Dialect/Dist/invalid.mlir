// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of dist.mesh, #dist.layout and the collectives.

//===----------------------------------------------------------------------===//
// dist.mesh
//===----------------------------------------------------------------------===//

// expected-error @+1 {{needs at least one axis}}
dist.mesh @m []

// -----

// expected-error @+1 {{axis names must be non-empty}}
dist.mesh @m ["dp" = 2, "" = 4]

// -----

// expected-error @+1 {{axis 'tp' appears twice}}
dist.mesh @m ["tp" = 2, "dp" = 2, "tp" = 4]

// -----

// expected-error @+1 {{axis 'tp' must have size >= 1, got 0}}
dist.mesh @m ["dp" = 2, "tp" = 0]

// -----

// expected-error @+1 {{axis 'dp' must have size >= 1, got -2}}
dist.mesh @m ["dp" = -2]

// -----

// expected-error @+1 {{has 1 axis names but 2 sizes}}
"dist.mesh"() <{sym_name = "m", axis_names = ["dp"], axis_sizes = array<i64: 2, 4>}> : () -> ()

// -----

// expected-error @+1 {{attribute 'axis_names' failed to satisfy constraint: string array attribute}}
"dist.mesh"() <{sym_name = "m", axis_names = [1, 2], axis_sizes = array<i64: 2, 4>}> : () -> ()

// -----

// expected-error @+1 {{expected string}}
dist.mesh @m [dp = 2]

// -----

// expected-error @+1 {{'dist.mesh' op has 1 roles for 2 axes}}
dist.mesh @m ["dp" = 2, "tp" = 4] roles [data]

// -----

// expected-error @+1 {{'dist.mesh' op role 'tensor' is given to more than one axis}}
dist.mesh @m ["a" = 2, "b" = 4] roles [tensor, tensor]

// -----

// expected-error @+1 {{unknown mesh axis role 'model' (data, tensor, context, pipeline)}}
dist.mesh @m ["tp" = 2] roles [model]

// -----

// expected-error @+1 {{'dist.mesh' op axis 'tp' has the invalid role 7}}
"dist.mesh"() <{sym_name = "m", axis_names = ["tp"], axis_sizes = array<i64: 2>, axis_roles = array<i32: 7>}> : () -> ()

//===----------------------------------------------------------------------===//
// #dist.layout
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{expected R, P or S(dim) for axis 'tp', got 'Q'}}
func.func @bad_kind(%x: tensor<4xf32, #dist.layout<@mesh, tp = Q>>) {
  return
}

// -----

// expected-error @+1 {{split dimension of axis 'tp' must be >= 0}}
func.func @negative_dim(%x: tensor<4xf32, #dist.layout<@mesh, tp = S(-1)>>) {
  return
}

// -----

// expected-error @+1 {{axis 'tp' given twice}}
func.func @axis_twice(%x: tensor<4x4xf32, #dist.layout<@mesh, tp = S(0), dp = P, tp = S(1)>>) {
  return
}

// -----

// An axis given twice is an error even when one of the entries is R.
// expected-error @+1 {{axis 'tp' given twice}}
func.func @axis_twice_replicated(%x: tensor<4xf32, #dist.layout<@mesh, tp = R, "tp" = P>>) {
  return
}

// -----

// expected-error @+1 {{layout axis names must be non-empty}}
func.func @empty_axis(%x: tensor<4xf32, #dist.layout<@mesh, "" = P>>) {
  return
}

// -----

// expected-error @+1 {{block count of axis 'tp' must be >= 1}}
func.func @zero_blocks(%x: tensor<4xf32, #dist.layout<@mesh, tp = S(0, blocks = 0)>>) {
  return
}

// -----

// expected-error @+1 {{expected 'blocks'}}
func.func @blocks_unnamed(%x: tensor<4xf32, #dist.layout<@mesh, tp = S(0, 2)>>) {
  return
}

// -----

// expected-error @+1 {{expected '('}}
func.func @split_without_dim(%x: tensor<4xf32, #dist.layout<@mesh, tp = S>>) {
  return
}

//===----------------------------------------------------------------------===//
// Checks shared by every collective: mesh, axis, layouts on the mesh
//===----------------------------------------------------------------------===//

// -----

func.func @mesh_missing(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'mesh' does not name a dist.mesh}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @not_a_mesh(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'not_a_mesh' does not name a dist.mesh}}
  dist.send %x on @not_a_mesh["tp"] offset 1 : tensor<2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @axis_missing(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{axis 'cp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.all_reduce %x on @mesh["cp"] sum : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @recv_axis_missing() {
  // expected-error @+1 {{axis 'pp' is not an axis of mesh @mesh (dp, tp)}}
  %0 = dist.recv on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_layout_axis(%x: tensor<2x8xf32, #dist.layout<@mesh, cp = S(1), tp = S(0)>>) {
  // expected-error @+1 {{layout of operand #0 names axis 'cp' that mesh @mesh does not have}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, cp = S(1), tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh, cp = S(1)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_layout_axis(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{layout of result #0 names axis 'sp' that mesh @mesh does not have}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32, #dist.layout<@mesh, sp = P, tp = S(0)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @send_layout_axis(%x: tensor<8x8xf32, #dist.layout<@mesh, pp = S(0)>>) {
  // expected-error @+1 {{layout of operand #0 names axis 'pp' that mesh @mesh does not have}}
  dist.send %x on @mesh["tp"] offset 1 : tensor<8x8xf32, #dist.layout<@mesh, pp = S(0)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_layout_axis(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<6x8xf32, #dist.layout<@mesh, cp = S(0)>>) {
  // expected-error @+1 {{layout of operand #1 names axis 'cp' that mesh @mesh does not have}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<6x8xf32, #dist.layout<@mesh, cp = S(0)>>) -> tensor<8x6xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_split_beyond_rank(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = S(2), tp = P>>) {
  // expected-error @+1 {{layout of operand #0 splits dimension 2 of a rank-2 tensor on axis 'dp'}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, dp = S(2), tp = P>> -> tensor<8x8xf32, #dist.layout<@mesh, dp = S(2)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_split_beyond_rank() {
  // expected-error @+1 {{layout of result #0 splits dimension 5 of a rank-2 tensor on axis 'tp'}}
  %0 = dist.recv on @mesh["tp"] offset 1 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(5)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @blocks_not_dividing(%x: tensor<2x8xf32>, %w: tensor<8x8xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>) {
  // expected-error @+1 {{layout of operand #1 cuts dimension 1 of local size 8 into 3 blocks on axis 'tp'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>) -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_gather
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for a rank-2 tensor}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_negative(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{dim -1 is out of range for a rank-2 tensor}}
  %0 = dist.all_gather %x on @mesh["tp"] dim -1 : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_factor(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 8] for axis 'tp' of size 4, got 'tensor<4x8xf32>'}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_dim_changes(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 8] for axis 'tp' of size 4, got 'tensor<8x2xf32>'}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'bf16'}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x8xbf16>
  return
}

// -----

// A type without a layout is replicated once the other side has one.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_operand(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

// -----

// A blocked split is not the plain split the gather undoes.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_blocked(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0, blocks = 2)>>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(0, blocks = 2)>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0, blocks = 2)>> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_split_other_dim(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_replicated(%x: tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, dp = S(0)>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, dp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh, dp = S(0)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_replicated(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{result must be R on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = S(1), tp = S(0)> vs #dist.layout<@mesh>}}
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

//===----------------------------------------------------------------------===//
// dist.reduce_scatter
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{dim 3 is out of range for a rank-2 tensor}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 3 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<6x8xf32>) {
  // expected-error @+1 {{dimension 0 (6) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<6x8xf32> -> tensor<1x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_shape(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [2, 8] for axis 'tp' of size 4, got 'tensor<4x8xf32>'}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'f16'}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<2x8xf16>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_result(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_partial(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{operand must be P on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_wrong_split(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = P, tp = P> vs #dist.layout<@mesh, dp = S(1), tp = S(0)>}}
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_reduce
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @shape_changes(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 8] for axis 'tp' of size 4, got 'tensor<2x8xf32>'}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32> -> tensor<2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xi32>) {
  // expected-error @+1 {{element type changes from 'i32' to 'i64'}}
  %0 = dist.all_reduce %x on @mesh["tp"] max : tensor<8x8xi32> -> tensor<8x8xi64>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_operand(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{operand must be P on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_partial(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{operand must be P on axis 'tp', its layout is #dist.layout<@mesh, tp = S(0)>}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_replicated(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{result must be R on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.all_reduce %x on @mesh["tp"] min : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = P, tp = P> vs #dist.layout<@mesh>}}
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, dp = P, tp = P>> -> tensor<8x8xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bad_kind(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min, mean]}}
  %0 = dist.all_reduce %x on @mesh["tp"] prod : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_to_all
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @split_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{split 2 is out of range for a rank-2 tensor}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 2 concat 0 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @concat_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{concat -1 is out of range for a rank-2 tensor}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat -1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @split_equals_concat(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{split and concat dimensions must differ, both are 1}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<8x6xf32>) {
  // expected-error @+1 {{dimension 1 (6) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x6xf32> -> tensor<32x1xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_shape(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [32, 2] for axis 'tp' of size 4, got 'tensor<2x32xf32>'}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32> -> tensor<2x32xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_dim_changes(%x: tensor<8x3x8xf32>) {
  // expected-error @+1 {{result shape must be [32, 3, 2] for axis 'tp' of size 4, got 'tensor<32x1x2xf32>'}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 2 concat 0 : tensor<8x3x8xf32> -> tensor<32x1x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xbf16>) {
  // expected-error @+1 {{element type changes from 'bf16' to 'f32'}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xbf16> -> tensor<32x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_result(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{result must be S(1) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<32x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_wrong_split(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // expected-error @+1 {{operand must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<32x2xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_wrong_split(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{result must be S(1) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<32x2xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, tp = S(0)> vs #dist.layout<@mesh, dp = P, tp = S(1)>}}
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<32x2xf32, #dist.layout<@mesh, dp = P, tp = S(1)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.local_slice
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for a rank-2 tensor}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 2 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<8x10xf32>) {
  // expected-error @+1 {{dimension 1 (10) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 1 : tensor<8x10xf32> -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @wrong_shape(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result shape must be [8, 4] for axis 'dp' of size 2, got 'tensor<8x2xf32>'}}
  %0 = dist.local_slice %x on @mesh["dp"] dim 1 : tensor<8x8xf32> -> tensor<8x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @element_type(%x: tensor<8x8xi64>) {
  // expected-error @+1 {{element type changes from 'i64' to 'i32'}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xi64> -> tensor<2x8xi32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @unannotated_result(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @operand_not_replicated(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>) {
  // expected-error @+1 {{operand must be R on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_wrong_split(%x: tensor<8x8xf32, #dist.layout<@mesh>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh>> -> tensor<2x8xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @other_axis_changes(%x: tensor<8x8xf32, #dist.layout<@mesh, dp = S(1)>>) {
  // expected-error @+1 {{layouts on axes other than 'tp' must not change: #dist.layout<@mesh, dp = S(1)> vs #dist.layout<@mesh, tp = S(0)>}}
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.send / dist.recv
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["pp" = 4]
func.func @send_offset_zero(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 0}}
  dist.send %x on @mesh["pp"] offset 0 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["pp" = 4]
func.func @send_offset_too_large(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 4}}
  dist.send %x on @mesh["pp"] offset 4 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["pp" = 4]
func.func @send_offset_too_small(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got -4}}
  dist.send %x on @mesh["pp"] offset -4 : tensor<8x8xf32>
  return
}

// -----

// On an axis of size 1 there is no neighbour to talk to.
dist.mesh @mesh ["pp" = 1]
func.func @send_size_one(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{offset must be non-zero and within (-1, 1) for axis 'pp', got 1}}
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}

// -----

func.func @send_mesh_missing(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'mesh' does not name a dist.mesh}}
  dist.send %x on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["pp" = 4]
func.func @recv_offset_zero() {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 0}}
  %0 = dist.recv on @mesh["pp"] offset 0 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["pp" = 4]
func.func @recv_offset_too_large() {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got 7}}
  %0 = dist.recv on @mesh["pp"] offset 7 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["pp" = 4]
func.func @recv_offset_too_small() {
  // expected-error @+1 {{offset must be non-zero and within (-4, 4) for axis 'pp', got -5}}
  %0 = dist.recv on @mesh["pp"] offset -5 : tensor<8x8xf32>
  return
}

// -----

func.func @recv_mesh_missing() {
  // expected-error @+1 {{'mesh' does not name a dist.mesh}}
  %0 = dist.recv on @mesh["pp"] offset 1 : tensor<8x8xf32>
  return
}

// -----

dist.mesh @mesh ["pp" = 4]
func.func @recv_layout_axis() {
  // expected-error @+1 {{layout of result #0 names axis 'tp' that mesh @mesh does not have}}
  %0 = dist.recv on @mesh["pp"] offset 1 : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_gather_matmul
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{dim 5 is out of range}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 5 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

// -----

// The last (contracted) dimension cannot be gathered.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_is_last(%x: tensor<2x2x8xf32>, %w: tensor<6x32xf32>) {
  // expected-error @+1 {{dim 2 is out of range}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 2 chunks 1 : (tensor<2x2x8xf32>, tensor<6x32xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_zero(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (0) must be >= 1 and divide the input's gathered dimension (2)}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 0 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_not_dividing(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (4) must be >= 1 and divide the input's gathered dimension (2)}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 4 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_rank(%x: tensor<2x2x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{weight must have rank 2, got 'tensor<8xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8xf32>) -> tensor<8x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @in_features_out_in(%x: tensor<2x2x8xf32>, %w: tensor<8x6xf32>) {
  // expected-error @+1 {{weight has 6 input features but the input's last dimension is 8}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<8x6xf32>) -> tensor<8x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @in_features_in_out(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{weight has 6 input features but the input's last dimension is 8}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_element(%x: tensor<2x2x8xf32>, %w: tensor<6x8xi32>) {
  // expected-error @+1 {{weight element type must be f32, bf16 or f16, got 'i32'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xi32>) -> tensor<8x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_size(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias must have shape [6], got 'tensor<8xf32>'}}
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>, tensor<8xf32>) -> tensor<8x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_rank(%x: tensor<2x2x8xf32>, %w: tensor<8x6xf32>, %b: tensor<1x6xf32>) {
  // expected-error @+1 {{bias must have shape [6], got 'tensor<1x6xf32>'}}
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x6xf32>, tensor<1x6xf32>) -> tensor<8x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_element(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>, %b: tensor<6xi64>) {
  // expected-error @+1 {{bias element type must be f32, bf16 or f16, got 'i64'}}
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>, tensor<6xi64>) -> tensor<8x2x6xf32>
  return
}

// -----

// The result is gathered along dim: not the input's local size.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_gathered(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 6], got 'tensor<2x2x6xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_out_features(%x: tensor<2x2x8xf32>, %w: tensor<8x6xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 6], got 'tensor<8x2x8xf32>'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x6xf32>) -> tensor<8x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_element(%x: tensor<2x2x8xbf16>, %w: tensor<6x8xbf16>) {
  // expected-error @+1 {{result element type must be f32, bf16 or f16, got 'i32'}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xbf16>, tensor<6x8xbf16>) -> tensor<8x2x6xi32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @input_not_split(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{input must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<6x8xf32>) -> tensor<8x2x6xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @input_replicated(%x: tensor<2x2x8xf32, #dist.layout<@mesh>>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{input must be S(0) on axis 'tp', its layout is #dist.layout<@mesh>}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh>>, tensor<6x8xf32>) -> tensor<8x2x6xf32, #dist.layout<@mesh>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_partial(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result must not be P on axis 'tp' after the gather}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<6x8xf32>) -> tensor<8x2x6xf32, #dist.layout<@mesh, tp = P>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_still_split(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result must not be S(0) on axis 'tp' after the gather}}
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<6x8xf32>) -> tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

//===----------------------------------------------------------------------===//
// dist.matmul_reduce_scatter
//===----------------------------------------------------------------------===//

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_out_of_range(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{dim -1 is out of range}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim -1 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @dim_is_last(%x: tensor<8x2x8xf32>, %w: tensor<8x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 2 chunks 1 : (tensor<8x2x8xf32>, tensor<8x8xf32>) -> tensor<8x2x2xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_rank(%x: tensor<8x2x8xf32>, %w: tensor<1x6x8xf32>) {
  // expected-error @+1 {{weight must have rank 2, got 'tensor<1x6x8xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<1x6x8xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @in_features_out_in(%x: tensor<8x2x8xf32>, %w: tensor<8x6xf32>) {
  // expected-error @+1 {{weight has 6 input features but the input's last dimension is 8}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<8x6xf32>) -> tensor<2x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @in_features_in_out(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{weight has 6 input features but the input's last dimension is 8}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @weight_element(%x: tensor<8x2x8xf16>, %w: tensor<6x8xi32>) {
  // expected-error @+1 {{weight element type must be f32, bf16 or f16, got 'i32'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf16>, tensor<6x8xi32>) -> tensor<2x2x6xf16>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_size(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>, %b: tensor<24xf32>) {
  // expected-error @+1 {{bias must have shape [6], got 'tensor<24xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w, %b on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>, tensor<24xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @bias_element(%x: tensor<8x2x8xbf16>, %w: tensor<6x8xbf16>, %b: tensor<6xi32>) {
  // expected-error @+1 {{bias element type must be f32, bf16 or f16, got 'i32'}}
  %0 = dist.matmul_reduce_scatter %x, %w, %b on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xbf16>, tensor<6x8xbf16>, tensor<6xi32>) -> tensor<2x2x6xbf16>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @not_divisible(%x: tensor<6x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{dimension 0 (6) is not divisible by the size of axis 'tp' (4)}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<6x2x8xf32>, tensor<6x8xf32>) -> tensor<1x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_scattered(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result shape must be [2, 2, 6] for axis 'tp' of size 4, got 'tensor<8x2x6xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_out_features(%x: tensor<8x2x8xf32>, %w: tensor<8x6xf32>) {
  // expected-error @+1 {{result shape must be [2, 2, 6] for axis 'tp' of size 4, got 'tensor<2x2x8xf32>'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<8x2x8xf32>, tensor<8x6xf32>) -> tensor<2x2x8xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_element(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{result element type must be f32, bf16 or f16, got 'i64'}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xi64>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_zero(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (0) must be >= 1 and divide the result's scattered dimension (2)}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 0 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

// chunks divides the input's dim (8) but not the result's (2).
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @chunks_not_dividing(%x: tensor<8x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (4) must be >= 1 and divide the result's scattered dimension (2)}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 4 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_not_split(%x: tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<6x2xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = P>}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<6x2xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<2x2x6xf32, #dist.layout<@mesh, tp = P>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @result_split_other_dim(%x: tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, %w: tensor<6x2xf32, #dist.layout<@mesh, tp = S(1)>>) {
  // expected-error @+1 {{result must be S(0) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(1)>}}
  %0 = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<6x2xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<2x2x6xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

// dist.all_gather_matmul_gelu: the GEMM's checks name pre; the result has
// pre's type.
dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @gelu_pre_shape(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{pre must have shape [8, 2, 6], got 'tensor<2x2x6xf32>'}}
  %0:2 = dist.all_gather_matmul_gelu %x, %w on @mesh["tp"] dim 0 chunks 1 approximate tanh : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> (tensor<2x2x6xf32>, tensor<2x2x6xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @gelu_result_type(%x: tensor<2x2x8xbf16>, %w: tensor<6x8xbf16>) {
  // expected-error @+1 {{result must have the type of pre ('tensor<8x2x6xbf16>'), got 'tensor<8x2x6xf32>'}}
  %0:2 = dist.all_gather_matmul_gelu %x, %w on @mesh["tp"] dim 0 chunks 1 approximate tanh : (tensor<2x2x8xbf16>, tensor<6x8xbf16>) -> (tensor<8x2x6xbf16>, tensor<8x2x6xf32>)
  return
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 4]
func.func @gelu_chunks(%x: tensor<2x2x8xf32>, %w: tensor<6x8xf32>) {
  // expected-error @+1 {{chunks (4) must be >= 1 and divide the input's gathered dimension (2)}}
  %0:2 = dist.all_gather_matmul_gelu %x, %w on @mesh["tp"] dim 0 chunks 4 approximate none : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> (tensor<8x2x6xf32>, tensor<8x2x6xf32>)
  return
}

// RUN: sp-opt %s -split-input-file -canonicalize | FileCheck %s
// Every op verifies after the rewrites (sp-opt verifies its output, the
// collectives' shapes and layouts included); canonicalize-verify.mlir runs
// sp-verify on whole programs rewritten the same way.

// The partitioner already emits none of the pairs rewritten here (it goes
// P -> S(d) with one reduce_scatter, emits no collective on an axis of size
// 1 and shares one collective between the users of a value), so on its
// output, forward and whole train step, canonicalization changes nothing and
// the result still verifies.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sp-import --hf-config %examples/configs/gpt2-tiny.json --seq-len 16 --batch 2 -o %t/gpt2.mlir
// RUN: sp-opt %t/gpt2.mlir --sp-partition="tp=2 sequence-parallel=true" -o %t/sp.mlir
// RUN: sp-opt %t/sp.mlir --canonicalize --sp-verify -o %t/sp-canon.mlir
// RUN: diff %t/sp.mlir %t/sp-canon.mlir
// RUN: FileCheck %s --check-prefix=GPT2 < %t/sp-canon.mlir
// RUN: sp-opt %t/gpt2.mlir --sp-partition="tp=2 dp=2 sequence-parallel=true" --tfm-autodiff --sp-sync-grads --sp-optimizer -o %t/step.mlir
// RUN: sp-opt %t/step.mlir --canonicalize --sp-verify -o %t/step-canon.mlir
// RUN: diff %t/step.mlir %t/step-canon.mlir
// RUN: sp-opt %t/gpt2.mlir --sp-partition="tp=4 sequence-parallel=false" -o %t/tp.mlir
// RUN: sp-opt %t/tp.mlir --canonicalize --sp-verify -o %t/tp-canon.mlir
// RUN: diff %t/tp.mlir %t/tp-canon.mlir
// GPT2: dist.reduce_scatter
// GPT2: dist.all_gather

//===----------------------------------------------------------------------===//
// A collective over an axis of size 1 is its operand (same type)
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_all_gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_all_gather(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_reduce_scatter
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_reduce_scatter(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Every reduction kind of a single contribution is that contribution.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @unit_all_reduce(%x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_reduce %x on @mesh["tp"] mean : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = dist.all_reduce %x on @mesh["tp"] max : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = dist.all_reduce %x on @mesh["tp"] min : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_all_to_all(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_local_slice
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_local_slice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// With layouts a collective changes the type even on an axis of size 1
// (S(0) -> R, P -> R): folding it would change its users' types, so it
// stays.
dist.mesh @mesh ["tp" = 1]
// CHECK-LABEL: func.func @unit_axis_with_layouts
// CHECK: dist.all_gather
// CHECK: dist.all_reduce
// CHECK: dist.local_slice
func.func @unit_axis_with_layouts(%x: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                                  %p: tensor<4x8xf32, #dist.layout<@mesh, tp = P>>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>) {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x8xf32>
  %1 = dist.all_reduce %p on @mesh["tp"] sum : tensor<4x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x8xf32>
  %2 = dist.local_slice %1 on @mesh["tp"] dim 1 : tensor<4x8xf32> -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>
}

// -----

// An axis of size 2 is no identity, even where the types agree.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @all_reduce_size_two
// CHECK: dist.all_reduce %{{.*}} on @mesh["dp"] sum
// CHECK: dist.all_reduce %{{.*}} on @mesh["dp"] max
func.func @all_reduce_size_two(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = dist.all_reduce %x on @mesh["dp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_reduce %x on @mesh["dp"] max : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// all_gather(local_slice(x)) and local_slice(all_gather(x))
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 4]
// CHECK-LABEL: func.func @gather_of_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>)
// CHECK-NEXT: return %[[X]]
func.func @gather_of_slice(%x: tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %1 : tensor<8x4xf32, #dist.layout<@mesh, dp = S(1)>>
}

// -----

// Sliced over tp, gathered over dp: not the same ranks.
dist.mesh @mesh ["dp" = 4, "tp" = 4]
// CHECK-LABEL: func.func @gather_of_slice_other_axis
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["dp"] dim 0
// CHECK: return %[[G]]
func.func @gather_of_slice_other_axis(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = dist.all_gather %0 on @mesh["dp"] dim 0 : tensor<2x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// The same axis name on two meshes: not the same ranks.
dist.mesh @a ["tp" = 2]
dist.mesh @b ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_slice_other_mesh
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @a["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @b["tp"] dim 0
// CHECK: return %[[G]]
func.func @gather_of_slice_other_mesh(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = dist.local_slice %x on @a["tp"] dim 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = dist.all_gather %0 on @b["tp"] dim 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Sliced along 0, gathered along 1: a different tensor.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_slice_other_dim
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["tp"] dim 1
// CHECK: return %[[G]]
func.func @gather_of_slice_other_dim(%x: tensor<4x4xf32>) -> tensor<2x8xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x4xf32> -> tensor<2x4xf32>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 1 : tensor<2x4xf32> -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// The slice's other user keeps it; the gather still folds.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_slice_two_users
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK: %[[S:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 0
// CHECK-NOT: dist.all_gather
// CHECK: return %[[X]], %[[S]]
func.func @gather_of_slice_two_users(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<4x4xf32> -> tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x4xf32>
  return %1, %0 : tensor<4x4xf32>, tensor<2x4xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: return %[[X]]
func.func @slice_of_gather(%x: tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8x2x8xf32> -> tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1 : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// Gathered over dp, sliced over tp: not the same ranks.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather_other_axis
// CHECK: %[[G:.*]] = dist.all_gather %{{.*}} on @mesh["dp"] dim 0
// CHECK: %[[S:.*]] = dist.local_slice %[[G]] on @mesh["tp"] dim 0
// CHECK: return %[[S]]
func.func @slice_of_gather_other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_gather %x on @mesh["dp"] dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// S(0) -> R -> S(1) is one all_to_all (the partitioner's S(a) -> S(b) path
// through R, which its rules never take).
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather_other_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>)
// CHECK-NEXT: %[[A:.*]] = dist.all_to_all %[[X]] on @mesh["tp"] split 2 concat 0 : tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
// CHECK-NEXT: return %[[A]]
func.func @slice_of_gather_other_dim(%x: tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>) -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>> {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x2x8xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x2x8xf32, #dist.layout<@mesh, dp = S(1)>>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 2 : tensor<8x2x8xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
  return %1 : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(2)>>
}

// -----

// The whole gathered tensor is needed anyway: slicing it costs nothing,
// an all_to_all would be extra traffic.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @slice_of_gather_other_dim_two_users
// CHECK: %[[G:.*]] = dist.all_gather %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[S:.*]] = dist.local_slice %[[G]] on @mesh["tp"] dim 1
// CHECK-NOT: dist.all_to_all
// CHECK: return %[[S]], %[[G]]
func.func @slice_of_gather_other_dim_two_users(%x: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x8xf32>) {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 1 : tensor<8x8xf32> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  return %1, %0 : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

// S(0) -> S(2) -> S(0): the second exchange sends every block back.
dist.mesh @mesh ["cp" = 2]
// CHECK-LABEL: func.func @all_to_all_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>)
// CHECK-NEXT: return %[[X]]
func.func @all_to_all_round_trip(%x: tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>) -> tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>> {
  %0 = dist.all_to_all %x on @mesh["cp"] split 2 concat 0 : tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>>
  %1 = dist.all_to_all %0 on @mesh["cp"] split 0 concat 2 : tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>> -> tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>
  return %1 : tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>
}

// -----

// S(0) -> S(2) -> S(1) is no round trip.
dist.mesh @mesh ["cp" = 2]
// CHECK-LABEL: func.func @all_to_all_chain
// CHECK: %[[A:.*]] = dist.all_to_all %{{.*}} on @mesh["cp"] split 2 concat 0
// CHECK: %[[B:.*]] = dist.all_to_all %[[A]] on @mesh["cp"] split 1 concat 2
// CHECK: return %[[B]]
func.func @all_to_all_chain(%x: tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>>) -> tensor<8x1x8xf32, #dist.layout<@mesh, cp = S(1)>> {
  %0 = dist.all_to_all %x on @mesh["cp"] split 2 concat 0 : tensor<4x2x8xf32, #dist.layout<@mesh, cp = S(0)>> -> tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>>
  %1 = dist.all_to_all %0 on @mesh["cp"] split 1 concat 2 : tensor<8x2x4xf32, #dist.layout<@mesh, cp = S(2)>> -> tensor<8x1x8xf32, #dist.layout<@mesh, cp = S(1)>>
  return %1 : tensor<8x1x8xf32, #dist.layout<@mesh, cp = S(1)>>
}

// -----

// Round trip on two different axes.
dist.mesh @mesh ["cp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @all_to_all_other_axis
// CHECK: %[[A:.*]] = dist.all_to_all %{{.*}} on @mesh["cp"] split 1 concat 0
// CHECK: %[[B:.*]] = dist.all_to_all %[[A]] on @mesh["tp"] split 0 concat 1
// CHECK: return %[[B]]
func.func @all_to_all_other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_to_all %x on @mesh["cp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = dist.all_to_all %0 on @mesh["tp"] split 0 concat 1 : tensor<8x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// R -> S(0) -> S(1) is R -> S(1): a local slice, nothing sent.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @all_to_all_of_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[S:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 1 : tensor<8x8xf32> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: return %[[S]]
func.func @all_to_all_of_slice(%x: tensor<8x8xf32>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.all_to_all %0 on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  return %1 : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
}

// -----

// Sliced over tp, exchanged over cp: not the same ranks.
dist.mesh @mesh ["cp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @all_to_all_of_slice_other_axis
// CHECK: %[[S:.*]] = dist.local_slice %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[A:.*]] = dist.all_to_all %[[S]] on @mesh["cp"] split 1 concat 0
// CHECK: return %[[A]]
func.func @all_to_all_of_slice_other_axis(%x: tensor<8x8xf32>) -> tensor<8x4xf32> {
  %0 = dist.local_slice %x on @mesh["tp"] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = dist.all_to_all %0 on @mesh["cp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// S(0) -> S(1) -> R is S(0) -> R: one gather.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>)
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[X]] on @mesh["tp"] dim 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gather_of_all_to_all(%x: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x8xf32> {
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 1 : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// Gathered along the exchange's concat dimension (shapes only, no layouts):
// not the split the all_to_all made.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @gather_of_all_to_all_other_dim
// CHECK: %[[A:.*]] = dist.all_to_all %{{.*}} on @mesh["tp"] split 1 concat 0
// CHECK: %[[G:.*]] = dist.all_gather %[[A]] on @mesh["tp"] dim 0
// CHECK: return %[[G]]
func.func @gather_of_all_to_all_other_dim(%x: tensor<4x8xf32>) -> tensor<16x4xf32> {
  %0 = dist.all_to_all %x on @mesh["tp"] split 1 concat 0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<16x4xf32>
  return %1 : tensor<16x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// all_reduce then local_slice: one reduce_scatter
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 4]
// CHECK-LABEL: func.func @all_reduce_then_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>)
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter %[[X]] on @mesh["tp"] dim 0 : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_then_slice(%x: tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>) -> tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> {
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1)>>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8x2x4xf32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  return %1 : tensor<2x2x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
}

// -----

// reduce_scatter only sums: max, min and mean stay.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @all_reduce_then_slice_not_sum
// CHECK-NOT: dist.reduce_scatter
// CHECK: dist.all_reduce %{{.*}} max
// CHECK: dist.local_slice
// CHECK: dist.all_reduce %{{.*}} min
// CHECK: dist.local_slice
// CHECK: dist.all_reduce %{{.*}} mean
// CHECK: dist.local_slice
// CHECK-NOT: dist.reduce_scatter
func.func @all_reduce_then_slice_not_sum(%x: tensor<8xf32, #dist.layout<@mesh, tp = P>>)
    -> (tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %0 = dist.all_reduce %x on @mesh["tp"] max : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  %2 = dist.all_reduce %x on @mesh["tp"] min : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %3 = dist.local_slice %2 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  %4 = dist.all_reduce %x on @mesh["tp"] mean : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %5 = dist.local_slice %4 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1, %3, %5 : tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// The whole sum has another user: the all_reduce stays, and so does the
// (free) slice.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @all_reduce_then_slice_two_users
// CHECK: %[[R:.*]] = dist.all_reduce %{{.*}} on @mesh["tp"] sum
// CHECK: %[[S:.*]] = dist.local_slice %[[R]] on @mesh["tp"] dim 0
// CHECK-NOT: dist.reduce_scatter
// CHECK: return %[[S]], %[[R]]
func.func @all_reduce_then_slice_two_users(%x: tensor<8xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) {
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1, %0 : tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>
}

// -----

// Reduced over dp, sliced over tp.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @all_reduce_then_slice_other_axis
// CHECK: %[[R:.*]] = dist.all_reduce %{{.*}} on @mesh["dp"] sum
// CHECK: %[[S:.*]] = dist.local_slice %[[R]] on @mesh["tp"] dim 0
// CHECK: return %[[S]]
func.func @all_reduce_then_slice_other_axis(%x: tensor<8xf32, #dist.layout<@mesh, dp = P>>) -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>> {
  %0 = dist.all_reduce %x on @mesh["dp"] sum : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf32>
  %1 = dist.local_slice %0 on @mesh["tp"] dim 0 : tensor<8xf32> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
  return %1 : tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

//===----------------------------------------------------------------------===//
// reduce_scatter then all_gather: one all_reduce
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather
// CHECK-SAME: (%[[X:.*]]: tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>)
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce %[[X]] on @mesh["tp"] sum : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
// CHECK-NEXT: return %[[R]]
func.func @reduce_scatter_then_gather(%x: tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>>) -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = P>> -> tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<4x1x4xf32, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
  return %1 : tensor<8x1x4xf32, #dist.layout<@mesh, dp = S(1)>>
}

// -----

// The shard has another user (the sequence-parallel norm between the two):
// both collectives stay.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather_two_users
// CHECK: %[[S:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["tp"] dim 0
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[G]], %[[S]]
func.func @reduce_scatter_then_gather_two_users(%x: tensor<8x4xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<8x4xf32>, tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>) {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x4xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 0 : tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x4xf32>
  return %1, %0 : tensor<8x4xf32>, tensor<4x4xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// Scattered along 0, gathered along 1 (shapes only): a different tensor.
dist.mesh @mesh ["tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather_other_dim
// CHECK: %[[S:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["tp"] dim 1
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[G]]
func.func @reduce_scatter_then_gather_other_dim(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = dist.all_gather %0 on @mesh["tp"] dim 1 : tensor<4x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Scattered over tp, gathered over dp (shapes only): not the same ranks.
dist.mesh @mesh ["dp" = 2, "tp" = 2]
// CHECK-LABEL: func.func @reduce_scatter_then_gather_other_axis
// CHECK: %[[S:.*]] = dist.reduce_scatter %{{.*}} on @mesh["tp"] dim 0
// CHECK: %[[G:.*]] = dist.all_gather %[[S]] on @mesh["dp"] dim 0
// CHECK-NOT: dist.all_reduce
// CHECK: return %[[G]]
func.func @reduce_scatter_then_gather_other_axis(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = dist.all_gather %0 on @mesh["dp"] dim 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// RUN: sp-opt %s | sp-opt | FileCheck %s
// RUN: sp-opt %s --mlir-print-op-generic | sp-opt | FileCheck %s

// Round trip of dist.mesh, #dist.layout and every collective, with and
// without layouts on the types; the second RUN line goes through the generic
// form.

// CHECK: dist.mesh @mesh ["dp" = 2, "tp" = 4]{{$}}
dist.mesh @mesh ["dp" = 2, "tp" = 4]
// CHECK: dist.mesh @single ["x" = 1]{{$}}
dist.mesh @single ["x" = 1]
// Axes keep their declared (not sorted) order.
// CHECK: dist.mesh @cube ["pp" = 2, "cp" = 2, "dp" = 2]{{$}}
dist.mesh @cube ["pp" = 2, "cp" = 2, "dp" = 2]
// Roles, one per axis in the axes' order, whatever the axes are called.
// CHECK: dist.mesh @roles ["stage" = 2, "ctx" = 2, "replica" = 2, "model" = 2] roles [pipeline, context, data, tensor]{{$}}
dist.mesh @roles ["stage" = 2, "ctx" = 2, "replica" = 2, "model" = 2] roles [pipeline, context, data, tensor]

//===----------------------------------------------------------------------===//
// #dist.layout
//===----------------------------------------------------------------------===//

// R entries are dropped, the others printed sorted by axis name; a layout of
// only R entries is the empty layout (which stays distinct from no layout).
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh, cp = P, dp = S(1), tp = S(0)>>
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh>>
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh>>
// CHECK-SAME: tensor<4x8xf32>
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh, "my axis" = S(1), tp = P>>
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh, dp = S(0)>>
// CHECK-SAME: tensor<4x18xf32, #dist.layout<@mesh, dp = S(0), tp = S(1, blocks = 3)>>
// CHECK-SAME: tensor<4x8xf32, #dist.layout<@mesh, tp = S(1)>>)
func.func @layouts(
    %a: tensor<4x8xf32, #dist.layout<@mesh, tp = S(0), pp = R, dp = S(1), cp = P>>,
    %b: tensor<4x8xf32, #dist.layout<@mesh, dp = R, tp = R>>,
    %c: tensor<4x8xf32, #dist.layout<@mesh>>,
    %d: tensor<4x8xf32>,
    %e: tensor<4x8xf32, #dist.layout<@mesh, tp = P, "my axis" = S(1)>>,
    %f: tensor<4x8xf32, #dist.layout<@mesh, "dp" = S(0)>>,
    %g: tensor<4x18xf32, #dist.layout<@mesh, tp = S(1, blocks = 3), dp = S(0)>>,
    // blocks = 1 is a plain split and is not printed.
    %h: tensor<4x8xf32, #dist.layout<@mesh, tp = S(1, blocks = 1)>>) {
  return
}

//===----------------------------------------------------------------------===//
// dist.all_gather: S(dim) -> R
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x8xf32>, %[[XL:[a-z0-9]+]]: tensor<2x3x8xbf16, #dist.layout<@mesh, dp = S(1), tp = S(0)>>, %[[I:[a-z0-9]+]]: tensor<5x3xi64>)
func.func @all_gather(
    %x: tensor<2x3x8xf32>,
    %xl: tensor<2x3x8xbf16, #dist.layout<@mesh, dp = S(1), tp = S(0)>>,
    %i: tensor<5x3xi64>)
    -> (tensor<8x3x8xf32>, tensor<8x3x8xbf16, #dist.layout<@mesh, dp = S(1)>>,
        tensor<5x6xi64>) {
  // CHECK: %[[A:.*]] = dist.all_gather %[[X]] on @mesh["tp"] dim 0 : tensor<2x3x8xf32> -> tensor<8x3x8xf32>
  %0 = dist.all_gather %x on @mesh["tp"] dim 0
      : tensor<2x3x8xf32> -> tensor<8x3x8xf32>
  // CHECK: %[[B:.*]] = dist.all_gather %[[XL]] on @mesh["tp"] dim 0 : tensor<2x3x8xbf16, #dist.layout<@mesh, dp = S(1), tp = S(0)>> -> tensor<8x3x8xbf16, #dist.layout<@mesh, dp = S(1)>>
  %1 = dist.all_gather %xl on @mesh["tp"] dim 0
      : tensor<2x3x8xbf16, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
      -> tensor<8x3x8xbf16, #dist.layout<@mesh, dp = S(1)>>
  // CHECK: %[[C:.*]] = dist.all_gather %[[I]] on @cube["cp"] dim 1 : tensor<5x3xi64> -> tensor<5x6xi64>
  %2 = dist.all_gather %i on @cube["cp"] dim 1
      : tensor<5x3xi64> -> tensor<5x6xi64>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2 : tensor<8x3x8xf32>,
      tensor<8x3x8xbf16, #dist.layout<@mesh, dp = S(1)>>, tensor<5x6xi64>
}

// Without a layout a type is replicated, so an all_gather may drop it.
// CHECK-LABEL: func.func @all_gather_to_unannotated
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>)
func.func @all_gather_to_unannotated(%x: tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>>)
    -> tensor<8x8xf32> {
  // CHECK: %[[A:.*]] = dist.all_gather %[[X]] on @mesh["tp"] dim 0 : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32>
  %0 = dist.all_gather %x on @mesh["tp"] dim 0
      : tensor<2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x8xf32>
  // CHECK: return %[[A]]
  return %0 : tensor<8x8xf32>
}

//===----------------------------------------------------------------------===//
// dist.reduce_scatter: P -> S(dim)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[XL:[a-z0-9]+]]: tensor<8x2x8xf16, #dist.layout<@mesh, tp = P>>)
func.func @reduce_scatter(%x: tensor<8x2x8xf32>,
                          %xl: tensor<8x2x8xf16, #dist.layout<@mesh, tp = P>>)
    -> (tensor<8x2x2xf32>, tensor<2x2x8xf16, #dist.layout<@mesh, tp = S(0)>>) {
  // CHECK: %[[A:.*]] = dist.reduce_scatter %[[X]] on @mesh["tp"] dim 2 : tensor<8x2x8xf32> -> tensor<8x2x2xf32>
  %0 = dist.reduce_scatter %x on @mesh["tp"] dim 2
      : tensor<8x2x8xf32> -> tensor<8x2x2xf32>
  // CHECK: %[[B:.*]] = dist.reduce_scatter %[[XL]] on @mesh["tp"] dim 0 : tensor<8x2x8xf16, #dist.layout<@mesh, tp = P>> -> tensor<2x2x8xf16, #dist.layout<@mesh, tp = S(0)>>
  %1 = dist.reduce_scatter %xl on @mesh["tp"] dim 0
      : tensor<8x2x8xf16, #dist.layout<@mesh, tp = P>>
      -> tensor<2x2x8xf16, #dist.layout<@mesh, tp = S(0)>>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<8x2x2xf32>, tensor<2x2x8xf16, #dist.layout<@mesh, tp = S(0)>>
}

//===----------------------------------------------------------------------===//
// dist.all_reduce: P -> R
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2xf32>, %[[XL:[a-z0-9]+]]: tensor<8x2xf32, #dist.layout<@mesh, dp = S(0), tp = P>>, %[[XP:[a-z0-9]+]]: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>)
func.func @all_reduce(%x: tensor<8x2xf32>,
                      %xl: tensor<8x2xf32, #dist.layout<@mesh, dp = S(0), tp = P>>,
                      %xp: tensor<8x2xf32, #dist.layout<@mesh, dp = P>>) {
  // CHECK: dist.all_reduce %[[X]] on @mesh["tp"] sum : tensor<8x2xf32> -> tensor<8x2xf32>
  %0 = dist.all_reduce %x on @mesh["tp"] sum : tensor<8x2xf32> -> tensor<8x2xf32>
  // CHECK: dist.all_reduce %[[XL]] on @mesh["tp"] max : tensor<8x2xf32, #dist.layout<@mesh, dp = S(0), tp = P>> -> tensor<8x2xf32, #dist.layout<@mesh, dp = S(0)>>
  %1 = dist.all_reduce %xl on @mesh["tp"] max
      : tensor<8x2xf32, #dist.layout<@mesh, dp = S(0), tp = P>>
      -> tensor<8x2xf32, #dist.layout<@mesh, dp = S(0)>>
  // CHECK: dist.all_reduce %[[XP]] on @mesh["dp"] min : tensor<8x2xf32, #dist.layout<@mesh, dp = P>> -> tensor<8x2xf32, #dist.layout<@mesh>>
  %2 = dist.all_reduce %xp on @mesh["dp"] min
      : tensor<8x2xf32, #dist.layout<@mesh, dp = P>> -> tensor<8x2xf32, #dist.layout<@mesh>>
  return
}

//===----------------------------------------------------------------------===//
// dist.all_to_all: S(concat) -> S(split)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[XL:[a-z0-9]+]]: tensor<2x2x16xbf16, #dist.layout<@mesh, dp = P, tp = S(0)>>)
func.func @all_to_all(%x: tensor<8x2x8xf32>,
                      %xl: tensor<2x2x16xbf16, #dist.layout<@mesh, dp = P, tp = S(0)>>)
    -> (tensor<32x2x2xf32>, tensor<8x2x4xbf16, #dist.layout<@mesh, dp = P, tp = S(2)>>) {
  // CHECK: %[[A:.*]] = dist.all_to_all %[[X]] on @mesh["tp"] split 2 concat 0 : tensor<8x2x8xf32> -> tensor<32x2x2xf32>
  %0 = dist.all_to_all %x on @mesh["tp"] split 2 concat 0
      : tensor<8x2x8xf32> -> tensor<32x2x2xf32>
  // CHECK: %[[B:.*]] = dist.all_to_all %[[XL]] on @mesh["tp"] split 2 concat 0 : tensor<2x2x16xbf16, #dist.layout<@mesh, dp = P, tp = S(0)>> -> tensor<8x2x4xbf16, #dist.layout<@mesh, dp = P, tp = S(2)>>
  %1 = dist.all_to_all %xl on @mesh["tp"] split 2 concat 0
      : tensor<2x2x16xbf16, #dist.layout<@mesh, dp = P, tp = S(0)>>
      -> tensor<8x2x4xbf16, #dist.layout<@mesh, dp = P, tp = S(2)>>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<32x2x2xf32>,
      tensor<8x2x4xbf16, #dist.layout<@mesh, dp = P, tp = S(2)>>
}

// The reverse exchange, from head shards back to sequence shards.
// CHECK-LABEL: func.func @all_to_all_back
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x4xf32, #dist.layout<@cube, cp = S(2)>>)
func.func @all_to_all_back(%x: tensor<8x2x4xf32, #dist.layout<@cube, cp = S(2)>>)
    -> tensor<4x2x8xf32, #dist.layout<@cube, cp = S(0)>> {
  // CHECK: dist.all_to_all %[[X]] on @cube["cp"] split 0 concat 2 : tensor<8x2x4xf32, #dist.layout<@cube, cp = S(2)>> -> tensor<4x2x8xf32, #dist.layout<@cube, cp = S(0)>>
  %0 = dist.all_to_all %x on @cube["cp"] split 0 concat 2
      : tensor<8x2x4xf32, #dist.layout<@cube, cp = S(2)>>
      -> tensor<4x2x8xf32, #dist.layout<@cube, cp = S(0)>>
  return %0 : tensor<4x2x8xf32, #dist.layout<@cube, cp = S(0)>>
}

//===----------------------------------------------------------------------===//
// dist.local_slice: R -> S(dim)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @local_slice
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[XL:[a-z0-9]+]]: tensor<8x2x8xf32, #dist.layout<@mesh>>, %[[I:[a-z0-9]+]]: tensor<8x2xi32, #dist.layout<@mesh, dp = S(1)>>)
func.func @local_slice(%x: tensor<8x2x8xf32>,
                       %xl: tensor<8x2x8xf32, #dist.layout<@mesh>>,
                       %i: tensor<8x2xi32, #dist.layout<@mesh, dp = S(1)>>) {
  // CHECK: dist.local_slice %[[X]] on @mesh["tp"] dim 0 : tensor<8x2x8xf32> -> tensor<2x2x8xf32>
  %0 = dist.local_slice %x on @mesh["tp"] dim 0
      : tensor<8x2x8xf32> -> tensor<2x2x8xf32>
  // CHECK: dist.local_slice %[[XL]] on @mesh["tp"] dim 2 : tensor<8x2x8xf32, #dist.layout<@mesh>> -> tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
  %1 = dist.local_slice %xl on @mesh["tp"] dim 2
      : tensor<8x2x8xf32, #dist.layout<@mesh>>
      -> tensor<8x2x2xf32, #dist.layout<@mesh, tp = S(2)>>
  // CHECK: dist.local_slice %[[I]] on @mesh["tp"] dim 0 : tensor<8x2xi32, #dist.layout<@mesh, dp = S(1)>> -> tensor<2x2xi32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  %2 = dist.local_slice %i on @mesh["tp"] dim 0
      : tensor<8x2xi32, #dist.layout<@mesh, dp = S(1)>>
      -> tensor<2x2xi32, #dist.layout<@mesh, dp = S(1), tp = S(0)>>
  return
}

// CHECK-LABEL: func.func @local_slice_from_unannotated
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x8xf32>)
func.func @local_slice_from_unannotated(%x: tensor<8x8xf32>)
    -> tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>> {
  // CHECK: %[[A:.*]] = dist.local_slice %[[X]] on @mesh["tp"] dim 1 : tensor<8x8xf32> -> tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
  %0 = dist.local_slice %x on @mesh["tp"] dim 1
      : tensor<8x8xf32> -> tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
  // CHECK: return %[[A]]
  return %0 : tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
}

// CHECK-LABEL: func.func @all_reduce_to_unannotated
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>)
func.func @all_reduce_to_unannotated(%x: tensor<8x8xf32, #dist.layout<@mesh, tp = P>>)
    -> tensor<8x8xf32> {
  // CHECK: %[[A:.*]] = dist.all_reduce %[[X]] on @mesh["tp"] sum : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x8xf32>
  %0 = dist.all_reduce %x on @mesh["tp"] sum
      : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x8xf32>
  // CHECK: return %[[A]]
  return %0 : tensor<8x8xf32>
}

//===----------------------------------------------------------------------===//
// dist.send / dist.recv
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @send_recv
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[XL:[a-z0-9]+]]: tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>)
func.func @send_recv(%x: tensor<8x2x8xf32>,
                     %xl: tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>)
    -> (tensor<8x2x8xf32>, tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>) {
  // CHECK: dist.send %[[X]] on @cube["pp"] offset 1 : tensor<8x2x8xf32>
  dist.send %x on @cube["pp"] offset 1 : tensor<8x2x8xf32>
  // CHECK: %[[R:.*]] = dist.recv on @cube["pp"] offset -1 : tensor<8x2x8xf32>
  %0 = dist.recv on @cube["pp"] offset -1 : tensor<8x2x8xf32>
  // Offsets up to (but excluding) the axis size in either direction.
  // CHECK: dist.send %[[XL]] on @mesh["tp"] offset -3 : tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  dist.send %xl on @mesh["tp"] offset -3
      : tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  // CHECK: %[[RL:.*]] = dist.recv on @mesh["tp"] offset 3 : tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  %1 = dist.recv on @mesh["tp"] offset 3
      : tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>
  // CHECK: return %[[R]], %[[RL]]
  return %0, %1 : tensor<8x2x8xf32>, tensor<8x2x8xbf16, #dist.layout<@mesh, tp = S(2)>>
}

//===----------------------------------------------------------------------===//
// dist.all_gather_matmul
//===----------------------------------------------------------------------===//

// A bf16 input of an f32 op: gathered in bf16, widened before the GEMMs.
// CHECK-LABEL: func.func @all_gather_matmul_widened
func.func @all_gather_matmul_widened(%x: tensor<2x2x8xbf16>, %w: tensor<6x8xf32>) {
  // CHECK: dist.all_gather_matmul %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 : (tensor<2x2x8xbf16>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  %0 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 2
      : (tensor<2x2x8xbf16>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  return
}

// CHECK-LABEL: func.func @all_gather_matmul
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x2x8xf32>, %[[WOI:[a-z0-9]+]]: tensor<6x8xf32>, %[[WIO:[a-z0-9]+]]: tensor<8x6xf32>, %[[B:[a-z0-9]+]]: tensor<6xf32>)
func.func @all_gather_matmul(%x: tensor<2x2x8xf32>, %w_oi: tensor<6x8xf32>,
                             %w_io: tensor<8x6xf32>, %b: tensor<6xf32>) {
  // The default out_in layout is not printed; chunks always is.
  // CHECK: dist.all_gather_matmul %[[X]], %[[WOI]] on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  %0 = dist.all_gather_matmul %x, %w_oi on @mesh["tp"] dim 0 chunks 1
      weight_layout out_in
      : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> tensor<8x2x6xf32>
  // CHECK: dist.all_gather_matmul %[[X]], %[[WOI]], %[[B]] on @mesh["tp"] dim 0 chunks 2 : (tensor<2x2x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<8x2x6xf32>
  %1 = dist.all_gather_matmul %x, %w_oi, %b on @mesh["tp"] dim 0 chunks 2
      : (tensor<2x2x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<8x2x6xf32>
  // CHECK: dist.all_gather_matmul %[[X]], %[[WIO]] on @mesh["dp"] dim 1 chunks 2 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  %2 = dist.all_gather_matmul %x, %w_io on @mesh["dp"] dim 1 chunks 2
      weight_layout in_out
      : (tensor<2x2x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  // CHECK: dist.all_gather_matmul %[[X]], %[[WIO]], %[[B]] on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32>, tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x2x6xf32>
  %3 = dist.all_gather_matmul %x, %w_io, %b on @mesh["tp"] dim 0 chunks 1
      weight_layout in_out
      : (tensor<2x2x8xf32>, tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x2x6xf32>
  return
}

// The gathered GEMM with its GELU (tfm-fuse-epilogues'): pre and the
// result, of one type; the approximation is always printed.
// CHECK-LABEL: func.func @all_gather_matmul_gelu
func.func @all_gather_matmul_gelu(
    %x: tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
    %w: tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>,
    %b: tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>, %xf: tensor<2x2x8xf32>,
    %wf: tensor<6x8xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = dist.all_gather_matmul_gelu %{{.*}}, %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 weight_layout in_out approximate tanh : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>) -> (tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>)
  %0:2 = dist.all_gather_matmul_gelu %x, %w, %b on @mesh["tp"] dim 0 chunks 2
      weight_layout in_out approximate tanh
      : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
         tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>,
         tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>)
      -> (tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>,
          tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>)
  // CHECK: dist.all_gather_matmul_gelu %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 1 approximate none : (tensor<2x2x8xf32>, tensor<6x8xf32>) -> (tensor<8x2x6xf32>, tensor<8x2x6xf32>)
  %1:2 = dist.all_gather_matmul_gelu %xf, %wf on @mesh["tp"] dim 0 chunks 1
      approximate none
      : (tensor<2x2x8xf32>, tensor<6x8xf32>)
      -> (tensor<8x2x6xf32>, tensor<8x2x6xf32>)
  return
}

// Column-parallel: the sequence-sharded input is gathered, the weight and
// bias hold this rank's output features, the result is split along them.
// CHECK-LABEL: func.func @all_gather_matmul_layouts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[W:[a-z0-9]+]]: tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>, %[[B:[a-z0-9]+]]: tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>)
func.func @all_gather_matmul_layouts(
    %x: tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
    %w: tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>,
    %b: tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>)
    -> (tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>,
        tensor<8x2x6xbf16, #dist.layout<@mesh>>) {
  // CHECK: %[[A:.*]] = dist.all_gather_matmul %[[X]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2
      weight_layout in_out
      : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
         tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>,
         tensor<6xbf16, #dist.layout<@mesh, tp = S(0)>>)
      -> tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>
  // A replicated result is allowed too.
  // CHECK: %[[R:.*]] = dist.all_gather_matmul %[[X]], %[[W]] on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x6xbf16, #dist.layout<@mesh>>
  %1 = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 0 chunks 1
      weight_layout in_out
      : (tensor<2x2x8xbf16, #dist.layout<@mesh, tp = S(0)>>,
         tensor<8x6xbf16, #dist.layout<@mesh, tp = S(1)>>)
      -> tensor<8x2x6xbf16, #dist.layout<@mesh>>
  // CHECK: return %[[A]], %[[R]]
  return %0, %1 : tensor<8x2x6xbf16, #dist.layout<@mesh, tp = S(2)>>,
      tensor<8x2x6xbf16, #dist.layout<@mesh>>
}

// GPT-2's fused [q | k | v] weight: each rank holds its part of every block.
// CHECK-LABEL: func.func @all_gather_matmul_blocked_weight
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, %[[W:[a-z0-9]+]]: tensor<8x6xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>, %[[B:[a-z0-9]+]]: tensor<6xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>)
func.func @all_gather_matmul_blocked_weight(
    %x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>,
    %w: tensor<8x6xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>,
    %b: tensor<6xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>)
    -> tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>> {
  // CHECK: %[[A:.*]] = dist.all_gather_matmul %[[X]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 1 weight_layout in_out : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x6xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>, tensor<6xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>) -> tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 1
      weight_layout in_out
      : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>,
         tensor<8x6xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>,
         tensor<6xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>)
      -> tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
  // CHECK: return %[[A]]
  return %0 : tensor<8x2x6xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
}

//===----------------------------------------------------------------------===//
// dist.matmul_reduce_scatter
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_reduce_scatter
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x8xf32>, %[[WOI:[a-z0-9]+]]: tensor<6x8xf32>, %[[WIO:[a-z0-9]+]]: tensor<8x6xf32>, %[[B:[a-z0-9]+]]: tensor<6xf32>)
func.func @matmul_reduce_scatter(%x: tensor<8x2x8xf32>, %w_oi: tensor<6x8xf32>,
                                 %w_io: tensor<8x6xf32>, %b: tensor<6xf32>) {
  // CHECK: dist.matmul_reduce_scatter %[[X]], %[[WOI]] on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  %0 = dist.matmul_reduce_scatter %x, %w_oi on @mesh["tp"] dim 0 chunks 1
      : (tensor<8x2x8xf32>, tensor<6x8xf32>) -> tensor<2x2x6xf32>
  // CHECK: dist.matmul_reduce_scatter %[[X]], %[[WOI]], %[[B]] on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x2x6xf32>
  %1 = dist.matmul_reduce_scatter %x, %w_oi, %b on @mesh["tp"] dim 0 chunks 2
      : (tensor<8x2x8xf32>, tensor<6x8xf32>, tensor<6xf32>)
      -> tensor<2x2x6xf32>
  // CHECK: dist.matmul_reduce_scatter %[[X]], %[[WIO]] on @mesh["dp"] dim 1 chunks 1 weight_layout in_out : (tensor<8x2x8xf32>, tensor<8x6xf32>) -> tensor<8x1x6xf32>
  %2 = dist.matmul_reduce_scatter %x, %w_io on @mesh["dp"] dim 1 chunks 1
      weight_layout in_out
      : (tensor<8x2x8xf32>, tensor<8x6xf32>) -> tensor<8x1x6xf32>
  // CHECK: dist.matmul_reduce_scatter %[[X]], %[[WIO]], %[[B]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<8x2x8xf32>, tensor<8x6xf32>, tensor<6xf32>) -> tensor<2x2x6xf32>
  %3 = dist.matmul_reduce_scatter %x, %w_io, %b on @mesh["tp"] dim 0 chunks 2
      weight_layout in_out
      : (tensor<8x2x8xf32>, tensor<8x6xf32>, tensor<6xf32>)
      -> tensor<2x2x6xf32>
  return
}

// Row-parallel: the input and weight hold this rank's input features, the
// reduced result is sequence-sharded.
// CHECK-LABEL: func.func @matmul_reduce_scatter_layouts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x2x2xf16, #dist.layout<@mesh, tp = S(2)>>, %[[W:[a-z0-9]+]]: tensor<6x2xf16, #dist.layout<@mesh, tp = S(1)>>, %[[B:[a-z0-9]+]]: tensor<6xf16>)
func.func @matmul_reduce_scatter_layouts(
    %x: tensor<8x2x2xf16, #dist.layout<@mesh, tp = S(2)>>,
    %w: tensor<6x2xf16, #dist.layout<@mesh, tp = S(1)>>, %b: tensor<6xf16>)
    -> tensor<2x2x6xf16, #dist.layout<@mesh, tp = S(0)>> {
  // CHECK: %[[R:.*]] = dist.matmul_reduce_scatter %[[X]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 2 : (tensor<8x2x2xf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x2xf16, #dist.layout<@mesh, tp = S(1)>>, tensor<6xf16>) -> tensor<2x2x6xf16, #dist.layout<@mesh, tp = S(0)>>
  %0 = dist.matmul_reduce_scatter %x, %w, %b on @mesh["tp"] dim 0 chunks 2
      : (tensor<8x2x2xf16, #dist.layout<@mesh, tp = S(2)>>,
         tensor<6x2xf16, #dist.layout<@mesh, tp = S(1)>>, tensor<6xf16>)
      -> tensor<2x2x6xf16, #dist.layout<@mesh, tp = S(0)>>
  // CHECK: return %[[R]]
  return %0 : tensor<2x2x6xf16, #dist.layout<@mesh, tp = S(0)>>
}

// Each tensor of a fused GEMM has its own element type (f32, bf16 or f16):
// the runtime's GEMMs read them as stored, accumulate in f32 and round the
// result once.
// CHECK-LABEL: func.func @fused_gemms_mixed_precision
func.func @fused_gemms_mixed_precision(%x: tensor<2x2x8xbf16>,
    %w: tensor<6x8xbf16>, %b: tensor<6xf32>, %xs: tensor<8x2x8xf16>,
    %ws: tensor<6x8xbf16>, %bs: tensor<6xbf16>, %dy: tensor<8x2x6xf16>) {
  // CHECK: dist.all_gather_matmul %{{.*}}, %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 : (tensor<2x2x8xbf16>, tensor<6x8xbf16>, tensor<6xf32>) -> tensor<8x2x6xf16>
  %0 = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2
      : (tensor<2x2x8xbf16>, tensor<6x8xbf16>, tensor<6xf32>)
      -> tensor<8x2x6xf16>
  // CHECK: dist.matmul_reduce_scatter %{{.*}}, %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 1 : (tensor<8x2x8xf16>, tensor<6x8xbf16>, tensor<6xbf16>) -> tensor<2x2x6xf32>
  %1 = dist.matmul_reduce_scatter %xs, %ws, %bs on @mesh["tp"] dim 0 chunks 1
      : (tensor<8x2x8xf16>, tensor<6x8xbf16>, tensor<6xbf16>)
      -> tensor<2x2x6xf32>
  // CHECK: dist.all_gather_matmul_grad_weight %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 1 : (tensor<2x2x8xbf16>, tensor<8x2x6xf16>) -> tensor<6x8xf32>
  %2 = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 1
      : (tensor<2x2x8xbf16>, tensor<8x2x6xf16>) -> tensor<6x8xf32>
  return
}

// RUN: sp-opt %s -split-input-file -sp-legalize-precision="storage-gemms=false storage-elementwise=false storage-rows=false" | FileCheck %s
// RUN: sp-opt %s -split-input-file -sp-legalize-precision | FileCheck %s --check-prefix=GEMM
// RUN: sp-opt %s -split-input-file -sp-legalize-precision -o %t.once.mlir
// RUN: sp-opt %t.once.mlir -split-input-file -sp-legalize-precision -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: sp-opt %s -split-input-file -sp-legalize-precision="storage-rows=false" -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// sp-legalize-precision: bf16 storage, f32 arithmetic. Every op with a bf16
// tensor that is not a byte mover computes in f32 between converts (its
// bf16 operands widened before it, one convert per value, its bf16 results
// retyped and narrowed after it); tfm.get_param, dist.all_gather and
// dist.local_slice keep their bf16 tensors. The second and third RUN lines
// run the pass on its own output: nothing changes. The converts take their
// op's location (LOC, with the norm wrapped: storage-rows=false). The CHECK lines are the pass with storage-gemms=false
// and storage-elementwise=false, where every op that computes does so on
// f32 copies; GEMM is the default, where the GEMMs read and write bf16 as
// stored (only a partial result becomes f32) and so do the elementwise maps
// (tfm.gelu, tfm.add, ...: MapsElementsAsStored) but for a partial one; the
// other ops are wrapped the same.

// GEMM-LABEL: func.func @block
// GEMM: %[[G:.*]] = dist.all_gather
// GEMM-NEXT: %[[FW:.*]] = tfm.get_param @fc.w
// GEMM-NEXT: %[[H:.*]] = tfm.linear %[[G]], %[[FW]] weight_layout in_out : (tensor<12x1x8xbf16>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// GEMM-NEXT: %[[A:.*]] = tfm.gelu %[[H]] approximate tanh {tfm.recomputed} : tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// GEMM-NEXT: %[[PW:.*]] = tfm.get_param @proj.w
// GEMM-NEXT: %[[P32:.*]] = tfm.linear %[[A]], %[[PW]] weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: %[[R32:.*]] = dist.all_reduce %[[P32]] on @mesh["tp"] sum : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<12x1x8xf32>
// GEMM-NEXT: %[[R:.*]] = tfm.convert %[[R32]] : tensor<12x1x8xf32> -> tensor<12x1x8xbf16>
// GEMM-NEXT: %[[S:.*]] = tfm.add %[[R]], %[[G]] : tensor<12x1x8xbf16>
// GEMM-NEXT: %[[D:.*]] = tfm.add %[[S]], %[[S]] : tensor<12x1x8xbf16>
// GEMM-NEXT: return %[[D]] : tensor<12x1x8xbf16>

// A sequence-parallel MLP block: norm, gathered input, column GEMM, GELU,
// row GEMM, all-reduce of its partial sum, residual add.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xbf16>
// The parameters are read as stored.
// CHECK-NEXT: %[[LW:.*]] = tfm.get_param @ln.w : tensor<8xbf16>
// CHECK-NEXT: %[[LB:.*]] = tfm.get_param @ln.b : tensor<8xbf16>
// The norm: each bf16 operand widened, the result narrowed, the layout kept.
// CHECK-NEXT: %[[X32:.*]] = tfm.convert %[[X]] : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[LW32:.*]] = tfm.convert %[[LW]] : tensor<8xbf16> -> tensor<8xf32>
// CHECK-NEXT: %[[LB32:.*]] = tfm.convert %[[LB]] : tensor<8xbf16> -> tensor<8xf32>
// CHECK-NEXT: %[[N32:.*]] = tfm.layer_norm %[[X32]], %[[LW32]], %[[LB32]] eps 1.000000e-05 : (tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[N:.*]] = tfm.convert %[[N32]] : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// LOC-LABEL: func.func @block
// LOC: tfm.convert {{.*}} loc("ln")
// LOC-NEXT: tfm.convert {{.*}} loc("ln")
// LOC-NEXT: tfm.convert {{.*}} loc("ln")
// LOC-NEXT: tfm.layer_norm {{.*}} loc("ln")
// LOC-NEXT: tfm.convert {{.*}} loc("ln")
// The gather moves bf16 bytes.
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %[[N]] on @mesh["tp"] dim 0 : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xbf16>
// CHECK-NEXT: %[[FW:.*]] = tfm.get_param @fc.w : tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: %[[G32:.*]] = tfm.convert %[[G]] : tensor<12x1x8xbf16> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[FW32:.*]] = tfm.convert %[[FW]] : tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: %[[H32:.*]] = tfm.linear %[[G32]], %[[FW32]] weight_layout in_out : (tensor<12x1x8xf32>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[H:.*]] = tfm.convert %[[H32]] : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// The GELU rounds its input and its result to bf16 like any op; a
// recomputed op's converts are recompute's work too.
// CHECK-NEXT: %[[H32B:.*]] = tfm.convert %[[H]] {tfm.recomputed} : tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>> -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[A32:.*]] = tfm.gelu %[[H32B]] approximate tanh {tfm.recomputed} : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[A:.*]] = tfm.convert %[[A32]] {tfm.recomputed} : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// The converts of the next op are not recomputed.
// CHECK-NOT: tfm.recomputed
// CHECK-NEXT: %[[PW:.*]] = tfm.get_param @proj.w : tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[A32B:.*]] = tfm.convert %[[A]]
// CHECK-NEXT: %[[PW32:.*]] = tfm.convert %[[PW]]
// CHECK-NEXT: %[[P32:.*]] = tfm.linear %[[A32B]], %[[PW32]] weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
// The partial sum is not rounded: each rank's f32 contribution is summed in
// f32 and the sum rounded once, as the one-device program rounds its GEMM.
// CHECK-NOT: tfm.convert %[[P32]]
// CHECK-NEXT: %[[R32:.*]] = dist.all_reduce %[[P32]] on @mesh["tp"] sum : tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[R:.*]] = tfm.convert %[[R32]] : tensor<12x1x8xf32> -> tensor<12x1x8xbf16>
// The gathered value, read by the GEMM above and by the add, is widened
// once per op; the add reads one value twice: one convert.
// CHECK-NEXT: %[[R32B:.*]] = tfm.convert %[[R]] : tensor<12x1x8xbf16> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[G32B:.*]] = tfm.convert %[[G]] : tensor<12x1x8xbf16> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[S32:.*]] = tfm.add %[[R32B]], %[[G32B]] : tensor<12x1x8xf32>
// CHECK-NEXT: %[[S:.*]] = tfm.convert %[[S32]] : tensor<12x1x8xf32> -> tensor<12x1x8xbf16>
// CHECK-NEXT: %[[S32B:.*]] = tfm.convert %[[S]] : tensor<12x1x8xbf16> -> tensor<12x1x8xf32>
// CHECK-NEXT: %[[D32:.*]] = tfm.add %[[S32B]], %[[S32B]] : tensor<12x1x8xf32>
// CHECK-NEXT: %[[D:.*]] = tfm.convert %[[D32]] : tensor<12x1x8xf32> -> tensor<12x1x8xbf16>
// The function's results are untouched.
// CHECK-NEXT: return %[[D]] : tensor<12x1x8xbf16>
dist.mesh @mesh ["tp" = 2]
tfm.param @ln.w : tensor<8xbf16> init ones
tfm.param @ln.b : tensor<8xbf16> init zeros
tfm.param @fc.w : tensor<8x8xbf16, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @proj.w : tensor<8x8xbf16, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @block(%x: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xbf16> {
  %lw = tfm.get_param @ln.w : tensor<8xbf16>
  %lb = tfm.get_param @ln.b : tensor<8xbf16>
  %n = tfm.layer_norm %x, %lw, %lb eps 1.0e-05 : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> loc("ln")
  %g = dist.all_gather %n on @mesh["tp"] dim 0 : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<12x1x8xbf16>
  %fw = tfm.get_param @fc.w : tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>
  %h = tfm.linear %g, %fw weight_layout in_out : (tensor<12x1x8xbf16>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
  %a = tfm.gelu %h approximate tanh {tfm.recomputed} : tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
  %pw = tfm.get_param @proj.w : tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %p = tfm.linear %a, %pw weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x8xbf16, #dist.layout<@mesh, tp = P>>
  %r = dist.all_reduce %p on @mesh["tp"] sum : tensor<12x1x8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<12x1x8xbf16>
  %s = tfm.add %r, %g : tensor<12x1x8xbf16>
  %d = tfm.add %s, %s : tensor<12x1x8xbf16>
  return %d : tensor<12x1x8xbf16>
}

// -----

// With storage-gemms=false a fused gather + GEMM is wrapped, but for its
// input, which is gathered in bf16 (half the bytes) and widened by the
// runtime after the gather. A local slice moves bytes.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[W:[a-z0-9]+]]: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, %[[B:[a-z0-9]+]]: tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[R:[a-z0-9]+]]: tensor<12x1x8xbf16>)
// CHECK-NEXT: %[[W32:.*]] = tfm.convert %[[W]] : tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>> -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// CHECK-NEXT: %[[B32:.*]] = tfm.convert %[[B]] : tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>> -> tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: %[[Y32:.*]] = dist.all_gather_matmul %[[X]], %[[W32]], %[[B32]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[Y:.*]] = tfm.convert %[[Y32]] : tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// CHECK-NEXT: %[[L:.*]] = dist.local_slice %[[R]] on @mesh["tp"] dim 0 : tensor<12x1x8xbf16> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// CHECK-NEXT: return %[[Y]], %[[L]]
dist.mesh @mesh ["tp" = 2]
func.func @fused(%x: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, %b: tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>, %r: tensor<12x1x8xbf16>) -> (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>) {
  %y = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
  %l = dist.local_slice %r on @mesh["tp"] dim 0 : tensor<12x1x8xbf16> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  return %y, %l : tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// The fused collective GEMMs read their tensors as stored, like tfm.linear
// (GEMM); their sums (the reduce-scattered output, the weight gradients)
// are written in f32 and rounded once after the op. With
// storage-gemms=false (CHECK) they compute on f32 copies, but for the
// gathered input, gathered in bf16 and widened by the runtime.
// GEMM-LABEL: func.func @fused_gemms
// GEMM-SAME: (%[[X:[a-z0-9]+]]: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[W:[a-z0-9]+]]: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, %[[B:[a-z0-9]+]]: tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[W2:[a-z0-9]+]]: tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[B2:[a-z0-9]+]]: tensor<8xbf16>, %[[DY:[a-z0-9]+]]: tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>)
// GEMM-NEXT: %[[Y:.*]] = dist.all_gather_matmul %[[X]], %[[W]], %[[B]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// GEMM-NEXT: %[[Z32:.*]] = dist.matmul_reduce_scatter %[[Y]], %[[W2]], %[[B2]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// GEMM-NEXT: %[[Z:.*]] = tfm.convert %[[Z32]] : tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// GEMM-NEXT: %[[DW32:.*]] = dist.all_gather_matmul_grad_weight %[[X]], %[[DY]] on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
// GEMM-NEXT: %[[DW:.*]] = tfm.convert %[[DW32]] : tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>> -> tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>
// GEMM-NEXT: return %[[Z]], %[[DW]]
// CHECK-LABEL: func.func @fused_gemms
// CHECK: dist.matmul_reduce_scatter %{{.*}}, %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<6x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
// CHECK: dist.all_gather_matmul_grad_weight %{{.*}}, %{{.*}} on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xf32, #dist.layout<@mesh, tp = S(1)>>
dist.mesh @mesh ["tp" = 2]
func.func @fused_gemms(%x: tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, %b: tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>, %w2: tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %b2: tensor<8xbf16>, %dy: tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>) -> (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>) {
  %y = dist.all_gather_matmul %x, %w, %b on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>, tensor<4xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
  %z = dist.matmul_reduce_scatter %y, %w2, %b2 on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %dw = dist.all_gather_matmul_grad_weight %x, %dy on @mesh["tp"] dim 0 chunks 2 weight_layout in_out : (tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>
  return %z, %dw : tensor<6x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>
}

// -----

// A mixed op: the bf16 logits are widened, the f32 statistics are as they
// were (no convert after). Each op widens the logits it reads.
// CHECK-LABEL: func.func @stats
// CHECK-SAME: (%[[L:[a-z0-9]+]]: tensor<8x2x64xbf16>)
// CHECK-NEXT: %[[L32:.*]] = tfm.convert %[[L]] : tensor<8x2x64xbf16> -> tensor<8x2x64xf32>
// CHECK-NEXT: %[[M:.*]] = tfm.logits_max %[[L32]] : tensor<8x2x64xf32> -> tensor<8x2xf32>
// CHECK-NEXT: %[[L32B:.*]] = tfm.convert %[[L]] : tensor<8x2x64xbf16> -> tensor<8x2x64xf32>
// CHECK-NEXT: %[[SE:.*]] = tfm.logits_sumexp %[[L32B]], %[[M]] : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<8x2xf32>
// CHECK-NEXT: return %[[M]], %[[SE]] : tensor<8x2xf32>, tensor<8x2xf32>
func.func @stats(%logits: tensor<8x2x64xbf16>) -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %m = tfm.logits_max %logits : tensor<8x2x64xbf16> -> tensor<8x2xf32>
  %se = tfm.logits_sumexp %logits, %m : tensor<8x2x64xbf16>, tensor<8x2xf32> -> tensor<8x2xf32>
  return %m, %se : tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// f16 storage is treated as bf16 is.
// CHECK-LABEL: func.func @half
// CHECK-NEXT: tfm.convert %{{.*}} : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: tfm.silu %{{.*}} : tensor<4x8xf32>
// CHECK-NEXT: tfm.convert %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT: return
func.func @half(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %y = tfm.silu %x : tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// An f32 program is unchanged.
// CHECK-LABEL: func.func @f32
// CHECK-NEXT: %[[A:.*]] = tfm.gelu %{{.*}} approximate none : tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce %[[A]] on @mesh["tp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: tfm.convert
dist.mesh @mesh ["tp" = 2]
func.func @f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tfm.gelu %x approximate none : tensor<4x8xf32>
  %r = dist.all_reduce %a on @mesh["tp"] sum : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// An optimizer update writes its bf16 parameter in place from a gradient of
// the parameter's type: left as it is (convert-sp-to-runtime refuses it;
// the policy keeps f32 master weights, whose updates are f32). The gradient
// is computed in f32 like any op's result.
// CHECK-LABEL: func.func @update
// CHECK-NEXT: tfm.hyperparameter lr
// CHECK-NEXT: tfm.hyperparameter weight_decay
// CHECK-NEXT: tfm.get_param @w : tensor<8x8xbf16>
// CHECK-NEXT: tfm.convert %{{.*}} : tensor<8x8xbf16> -> tensor<8x8xf32>
// CHECK-NEXT: tfm.scale %{{.*}} by 5.000000e-01 : tensor<8x8xf32>
// CHECK-NEXT: %[[G:.*]] = tfm.convert %{{.*}} : tensor<8x8xf32> -> tensor<8x8xbf16>
// CHECK-NEXT: tfm.sgd_update @w, %[[G]] scale %{{.*}} lr %{{.*}} weight_decay %{{.*}} : tensor<8x8xbf16>, tensor<f32>
tfm.param @w : tensor<8x8xbf16> init normal(2.000000e-02)
func.func @update(%g: tensor<8x8xbf16>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xbf16>
  %g2 = tfm.scale %g by 5.000000e-01 : tensor<8x8xbf16>
  tfm.sgd_update @w, %g2 scale %s lr %lr weight_decay %weight_decay : tensor<8x8xbf16>, tensor<f32>
  return
}

// -----

// A partial gradient (a norm weight's, summed over sequence shards) stays
// f32 for its conversion to f32 (which goes: the value itself is f32) and
// reaches a non-computing user (the function's result) converted to bf16.
// CHECK-LABEL: func.func @partial_grad
// CHECK: %[[DX:.*]], %[[DW:.*]] = tfm.rms_norm_grad {{.*}} -> (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>)
// CHECK-NOT: tfm.convert %[[DW]] : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xf32
// CHECK: %[[DW16:.*]] = tfm.convert %[[DW]] : tensor<8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8xbf16, #dist.layout<@mesh, tp = P>>
// CHECK: return {{.*}}, %[[DW]], %[[DW16]]
dist.mesh @mesh ["tp" = 2]
func.func @partial_grad(%dy: tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %x: tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %w: tensor<8xbf16>) -> (tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>) {
  %dx, %dw = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16>) -> (tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>)
  %dw32 = tfm.convert %dw : tensor<8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<8xf32, #dist.layout<@mesh, tp = P>>
  return %dx, %dw32, %dw : tensor<4x1x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xbf16, #dist.layout<@mesh, tp = P>>
}

// -----

// Ring attention in bf16: the forward computes in f32 and its output is
// narrowed for its other users (%use), but its backward reads the f32
// output itself, with the f32 lse of the same rows (D = rowsum(dout * out)
// from a rounded output would shift each row's softmax gradient); the
// other operands are widened as usual.
// CHECK-LABEL: func.func @ring
// CHECK: %[[O32:.*]], %[[L:.*]] = dist.ring_attention {{.*}} -> (tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x2xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
// CHECK-NEXT: %[[O:.*]] = tfm.convert %[[O32]] : tensor<8x2x32xf32, #dist.layout<@mesh, cp = S(0, zigzag)>> -> tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>
// CHECK: tfm.convert %[[O]] : {{.*}}xbf16{{.*}} -> {{.*}}xf32
// CHECK-NEXT: tfm.gelu
// CHECK-NOT: tfm.convert %[[O]]
// CHECK: dist.ring_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O32]], %[[L]] on @mesh["cp"]
// CHECK-NOT: tfm.convert %[[O]]
// CHECK: return
dist.mesh @mesh ["cp" = 2] roles [context]
func.func @ring(%q: tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %k: tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %v: tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>,
                %dy: tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>)
    -> (tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>) {
  %o, %lse = dist.ring_attention %q, %k, %v on @mesh["cp"] heads 2 kv_heads 2 head_dim 16 {causal}
      : (tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>)
      -> (tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x2xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
  %use = tfm.gelu %o approximate tanh : tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>
  %dq, %dk, %dv = dist.ring_attention_grad %dy, %q, %k, %v, %o, %lse on @mesh["cp"] heads 2 kv_heads 2 head_dim 16 {causal}
      : (tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x2xf32, #dist.layout<@mesh, cp = S(0, zigzag)>>)
      -> (tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>)
  return %use, %dq : tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>, tensor<8x2x32xbf16, #dist.layout<@mesh, cp = S(0, zigzag)>>
}

// -----

// The gradients of a GEMM read their operands as stored, whatever their
// types (an f32 gradient, a bf16 weight); a partial result becomes f32 and
// is read unrounded by the next GEMM, which reads any type; a complete one
// stays bf16.
// CHECK-LABEL: func.func @grads
// CHECK: tfm.convert
// GEMM-LABEL: func.func @grads
// GEMM-SAME: (%[[DY:[a-z0-9]+]]: tensor<12x1x8xf32>, %[[W:[a-z0-9]+]]: tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %[[X:[a-z0-9]+]]: tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, %[[X2:[a-z0-9]+]]: tensor<12x1x8xbf16>, %[[W2:[a-z0-9]+]]: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>)
// GEMM-NEXT: %[[DX:.*]] = tfm.linear_grad_input %[[DY]], %[[W]] weight_layout in_out : (tensor<12x1x8xf32>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
// GEMM-NEXT: %[[DW:.*]] = tfm.linear_grad_weight %[[X]], %[[DY]] weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x8xf32>) -> tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>
// GEMM-NEXT: %[[DX2:.*]] = tfm.linear_grad_input %[[DX]], %[[W2]] weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: %[[DW2:.*]] = tfm.linear_grad_weight %[[X2]], %[[DX2]] : (tensor<12x1x8xbf16>, tensor<12x1x8xf32, #dist.layout<@mesh, tp = P>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: %[[N:.*]] = tfm.convert %[[DW2]] : tensor<8x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x8xbf16, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: return %[[DX]], %[[DW]], %[[N]]
dist.mesh @mesh ["tp" = 2]
func.func @grads(%dy: tensor<12x1x8xf32>, %w: tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, %x: tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, %x2: tensor<12x1x8xbf16>, %w2: tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>) -> (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x8xbf16, #dist.layout<@mesh, tp = P>>) {
  %dx = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<12x1x8xf32>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>
  %dw = tfm.linear_grad_weight %x, %dy weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<12x1x8xf32>) -> tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>
  %dx2 = tfm.linear_grad_input %dx, %w2 weight_layout in_out : (tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xbf16, #dist.layout<@mesh, tp = S(1)>>) -> tensor<12x1x8xbf16, #dist.layout<@mesh, tp = P>>
  %dw2 = tfm.linear_grad_weight %x2, %dx2 : (tensor<12x1x8xbf16>, tensor<12x1x8xbf16, #dist.layout<@mesh, tp = P>>) -> tensor<8x8xbf16, #dist.layout<@mesh, tp = P>>
  return %dx, %dw, %dw2 : tensor<12x1x4xbf16, #dist.layout<@mesh, tp = S(2)>>, tensor<4x8xbf16, #dist.layout<@mesh, tp = S(0)>>, tensor<8x8xbf16, #dist.layout<@mesh, tp = P>>
}

// -----

// An elementwise map with a partial tensor computes in f32 even by default
// (the sum of the contributions is rounded once, after the reduction); one
// without keeps bf16.
// GEMM-LABEL: func.func @partial_map
// GEMM-SAME: (%[[A:[a-z0-9]+]]: {{.*}}, %[[B:[a-z0-9]+]]: {{.*}}, %[[C:[a-z0-9]+]]: tensor<4x8xbf16>)
// GEMM-NEXT: %[[A32:.*]] = tfm.convert %[[A]] : tensor<4x8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<4x8xf32, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: %[[B32:.*]] = tfm.convert %[[B]] : tensor<4x8xbf16, #dist.layout<@mesh, tp = P>> -> tensor<4x8xf32, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: %[[S32:.*]] = tfm.add %[[A32]], %[[B32]] : tensor<4x8xf32, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: %[[M:.*]] = tfm.mul %[[C]], %[[C]] : tensor<4x8xbf16>
// GEMM-NEXT: %[[S:.*]] = tfm.convert %[[S32]] : tensor<4x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x8xbf16, #dist.layout<@mesh, tp = P>>
// GEMM-NEXT: return %[[S]], %[[M]]
// CHECK-LABEL: func.func @partial_map
// CHECK: tfm.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>
dist.mesh @mesh ["tp" = 2]
func.func @partial_map(%a: tensor<4x8xbf16, #dist.layout<@mesh, tp = P>>, %b: tensor<4x8xbf16, #dist.layout<@mesh, tp = P>>, %c: tensor<4x8xbf16>) -> (tensor<4x8xbf16, #dist.layout<@mesh, tp = P>>, tensor<4x8xbf16>) {
  %s = tfm.add %a, %b : tensor<4x8xbf16, #dist.layout<@mesh, tp = P>>
  %m = tfm.mul %c, %c : tensor<4x8xbf16>
  return %s, %m : tensor<4x8xbf16, #dist.layout<@mesh, tp = P>>, tensor<4x8xbf16>
}

// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// The collectives no model of the pipelines emits yet (context and pipeline
// parallelism will): each is one call, with byte counts, shapes, dims and
// mesh-axis indices as the runtime takes them. Mesh axis 0 is pp, 1 is tp.
dist.mesh @mesh ["pp" = 2, "tp" = 4]
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[^:]*]]: !llvm.ptr
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  // recv(out, bytes = 8*2*8*4, offset -1, axis pp)
  // CHECK: %[[R:.*]] = llvm.getelementptr %[[ARENA]]
  // CHECK-NEXT: %[[RB:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: %[[RO:.*]] = llvm.mlir.constant(-1 : i64) : i64
  // CHECK-NEXT: %[[RA:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_recv(%[[R]], %[[RB]], %[[RO]], %[[RA]]) : (!llvm.ptr, i64, i64, i32) -> ()
  %r = dist.recv on @mesh["pp"] offset -1 : tensor<8x2x8xf32>
  // A unary elementwise op: (in, out, n).
  // CHECK: llvm.call @sprt_silu_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %s = tfm.silu %r : tensor<8x2x8xf32>
  // all_to_all(in, out, 4 bytes, rank 3, 8, 2, 8, 1, split 2, concat 0, tp,
  // workspace, 512 bytes): the blocks of dim 2 are strided (8 x 2 rows
  // before it), so they are packed into a workspace of the operand's bytes;
  // those received along dim 0 land in place. Without a plan the workspace
  // follows the values (4 x 512 + 128 bytes and the scalar, 64-byte aligned).
  // CHECK: %[[E:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK-NEXT: %[[RK:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: %[[D0:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[D1:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK-NEXT: %[[D2:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK-NEXT: %[[D3:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[SPLIT:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: %[[CONCAT:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TP:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[WO:.*]] = llvm.mlir.constant(1728 : i64) : i64
  // CHECK-NEXT: %[[W:.*]] = llvm.getelementptr %[[ARENA]][%[[WO]]]
  // CHECK-NEXT: %[[WB:.*]] = llvm.mlir.constant(512 : i64) : i64
  // CHECK-NEXT: llvm.call @sprt_all_to_all(%{{.*}}, %{{.*}}, %[[E]], %[[RK]], %[[D0]], %[[D1]], %[[D2]], %[[D3]], %[[SPLIT]], %[[CONCAT]], %[[TP]], %[[W]], %[[WB]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i64, i64, i64, i64, i32, i32, i32, !llvm.ptr, i64) -> ()
  %a = dist.all_to_all %s on @mesh["tp"] split 2 concat 0 : tensor<8x2x8xf32> -> tensor<32x2x2xf32>
  // local_slice(in, out, 4 bytes, rank 3, 32, 2, 2, 1, dim 0, tp, zigzag 0)
  // CHECK: %[[LD:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[LA:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[LZ:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_local_slice({{.*}}, %[[LD]], %[[LA]], %[[LZ]]) : (!llvm.ptr, !llvm.ptr, i64, i32, i64, i64, i64, i64, i32, i32, i32) -> ()
  %c = dist.local_slice %a on @mesh["tp"] dim 0 : tensor<32x2x2xf32> -> tensor<8x2x2xf32>
  // send(in, bytes = 8*2*2*4, offset 1, axis pp)
  // CHECK: %[[S:.*]] = llvm.getelementptr %[[ARENA]]
  // CHECK-NEXT: %[[SB:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: %[[SO:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK-NEXT: %[[SA:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: llvm.call @sprt_send(%[[S]], %[[SB]], %[[SO]], %[[SA]]) : (!llvm.ptr, i64, i64, i32) -> ()
  dist.send %c on @mesh["pp"] offset 1 : tensor<8x2x2xf32>
  // CHECK: llvm.call @sprt_fill_f32
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}
// The arena holds the values and, after them, the workspace; it is the
// largest workspace of any op.
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: arena_bytes\22:2240
// CHECK-SAME: workspace_bytes\22:512

// RUN: sp-opt %s -convert-sp-to-runtime | FileCheck %s

// A planned module of two pipeline stages (pp = 2, the mesh's pipeline
// axis 0): each stage function lowers to its own internal function with
// seqpar_step's signature; the exported seqpar_step calls the one of the
// rank's pipeline coordinate, then completes the sends the stage started.
// The backward ops are stand-ins (this is the lowering's test): stage 0
// reads the tied @wte, stage 1 reads @wte and @b.
// CHECK-LABEL: llvm.func internal @seqpar_step_stage0(
// CHECK-SAME: %[[A0:[a-z0-9]+]]: !llvm.ptr
// CHECK: llvm.call @sprt_op_embedding(
// Stage 0's planned offsets: the send reads the embedding at 0, the recv
// writes at 256.
// CHECK: %[[SO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr %[[A0]][%[[SO]]]
// CHECK-NEXT: %[[SB:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: %[[SOFF:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[SAX:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @sprt_send(%[[S]], %[[SB]], %[[SOFF]], %[[SAX]])
// CHECK: %[[RO:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT: %[[R:.*]] = llvm.getelementptr %[[A0]][%[[RO]]]
// CHECK: llvm.call @sprt_recv(%[[R]],
// CHECK: llvm.call @sprt_linear_grad_weight_f32(
// CHECK-NOT: llvm.call @sprt_cross_entropy_f32
// CHECK: llvm.return
// CHECK-LABEL: llvm.func internal @seqpar_step_stage1(
// CHECK-NOT: sprt_op_embedding
// CHECK: llvm.call @sprt_recv(
// CHECK: llvm.call @sprt_linear_f32(
// CHECK: llvm.call @sprt_cross_entropy_f32(
// CHECK: llvm.call @sprt_send(
// CHECK: llvm.return
// The dispatcher: sprt_axis_coord(pipeline axis 0) selects the stage.
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: !llvm.ptr, %[[PARAMS:[a-z0-9]+]]: !llvm.ptr, %[[IDS:[a-z0-9]+]]: !llvm.ptr, %[[LABELS:[a-z0-9]+]]: !llvm.ptr, %[[SC:[a-z0-9]+]]: !llvm.ptr, %[[GR:[a-z0-9]+]]: !llvm.ptr, %[[ST:[a-z0-9]+]]: !llvm.ptr, %[[HY:[a-z0-9]+]]: !llvm.ptr)
// CHECK-NEXT: %[[AXIS:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[COORD:.*]] = llvm.call @sprt_axis_coord(%[[AXIS]]) : (i32) -> i64
// CHECK-NEXT: llvm.switch %[[COORD]] : i64, ^[[DONE:bb[0-9]+]] [
// CHECK-NEXT: 0: ^[[B0:bb[0-9]+]],
// CHECK-NEXT: 1: ^[[B1:bb[0-9]+]]
// CHECK: ^[[B0]]:
// CHECK-NEXT: llvm.call @seqpar_step_stage0(%[[ARENA]], %[[PARAMS]], %[[IDS]], %[[LABELS]], %[[SC]], %[[GR]], %[[ST]], %[[HY]])
// CHECK-NEXT: llvm.br ^[[DONE]]
// CHECK: ^[[B1]]:
// CHECK-NEXT: llvm.call @seqpar_step_stage1(%[[ARENA]], %[[PARAMS]], %[[IDS]], %[[LABELS]], %[[SC]], %[[GR]], %[[ST]], %[[HY]])
// CHECK-NEXT: llvm.br ^[[DONE]]
// CHECK: ^[[DONE]]:
// CHECK-NEXT: llvm.call @sprt_complete_sends() : () -> ()
// CHECK-NEXT: llvm.return
// The model JSON: the largest figures of any stage at the top level (stage
// 1's arena and FLOPs: its GEMM 2 x 16 x 16 x 4; stage 0's 2 x 16 x 4 x 4),
// every gradient once (@wte as stage 0 returns it, then stage 1's @b), the
// vocabulary of stage 0's embedding, the pipeline axis, the stages reading
// each parameter, and per stage its own record, whose planned parameters
// are those it holds (stage 0: @wte's 256 bytes; stage 1: 256 + 64).
// CHECK: llvm.mlir.global external constant @seqpar_model_json
// CHECK-SAME: {\22arena_bytes\22:2048,\22batch\22:2,\22batch_axis\22:-1,\22eval_step\22:false,
// CHECK-SAME: \22flops_per_step\22:2048,\22format_version\22:3,\22grad_shard_axes\22:[-1,-1],\22grads\22:[0,1],
// CHECK-SAME: \22name\22:\22wte\22,\22shape\22:[16,4],\22splits\22:[],\22stages\22:[0,1],
// CHECK-SAME: \22name\22:\22b\22,\22shape\22:[16],\22splits\22:[],\22stages\22:[1]}],
// CHECK-SAME: \22pipeline_axis\22:0,
// CHECK-SAME: \22planned\22:{\22arena\22:2048,\22optimizer_state\22:0,\22parameters\22:320,\22peak_bytes\22:2624,\22tokens\22:256},
// CHECK-SAME: \22stages\22:[{\22arena_bytes\22:576,\22flops_per_step\22:512,\22grad_shard_axes\22:[-1],\22grads\22:[0],\22planned\22:{\22arena\22:576,\22optimizer_state\22:0,\22parameters\22:256,\22peak_bytes\22:1088,\22tokens\22:256},\22recompute_flops_per_step\22:0,\22workspace_bytes\22:0},
// CHECK-SAME: {\22arena_bytes\22:2048,\22flops_per_step\22:2048,\22grad_shard_axes\22:[-1,-1],\22grads\22:[0,1],\22planned\22:{\22arena\22:2048,\22optimizer_state\22:0,\22parameters\22:320,\22peak_bytes\22:2624,\22tokens\22:256},\22recompute_flops_per_step\22:0,\22workspace_bytes\22:0}],
// CHECK-SAME: \22vocab\22:16,
dist.mesh @mesh ["pp" = 2] roles [pipeline]
tfm.param @wte : tensor<16x4xf32> init normal(2.000000e-02)
tfm.param @b : tensor<16xf32> init zeros
func.func @train_step_stage0(%arg0: tensor<8x2xi64>, %arg1: tensor<8x2xi64>) -> (tensor<f32>, tensor<16x4xf32> {tfm.grad_of = @wte}) attributes {dist.arena_bytes = 576 : i64, dist.arena_max_live = 576 : i64, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
  %0 = tfm.get_param @wte : tensor<16x4xf32>
  %1 = tfm.embedding %arg0, %0 {dist.arena_offsets = array<i64: 0>} : (tensor<8x2xi64>, tensor<16x4xf32>) -> tensor<8x2x4xf32>
  dist.send %1 on @mesh["pp"] offset 1 : tensor<8x2x4xf32>
  %2 = dist.recv on @mesh["pp"] offset 1 {dist.arena_offsets = array<i64: 256>} : tensor<8x2x4xf32>
  %3 = tfm.linear_grad_weight %2, %1 {dist.arena_offsets = array<i64: 512>} : (tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> tensor<4x4xf32>
  %4 = tfm.fill 0.000000e+00 {dist.arena_offsets = array<i64: 256>} : tensor<f32>
  %5 = tfm.fill 0.000000e+00 {dist.arena_offsets = array<i64: 0>} : tensor<16x4xf32>
  return %4, %5 : tensor<f32>, tensor<16x4xf32>
}
func.func @train_step_stage1(%arg0: tensor<8x2xi64>, %arg1: tensor<8x2xi64>) -> (tensor<f32>, tensor<16x4xf32> {tfm.grad_of = @wte}, tensor<16xf32> {tfm.grad_of = @b}) attributes {dist.arena_bytes = 2048 : i64, dist.arena_max_live = 2048 : i64, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64, tfm.train_step} {
  %0 = dist.recv on @mesh["pp"] offset -1 {dist.arena_offsets = array<i64: 1024>} : tensor<8x2x4xf32>
  %1 = tfm.get_param @wte : tensor<16x4xf32>
  %2 = tfm.get_param @b : tensor<16xf32>
  %3 = tfm.linear %0, %1 {dist.arena_offsets = array<i64: 0>} : (tensor<8x2x4xf32>, tensor<16x4xf32>) -> tensor<8x2x16xf32>
  %4 = tfm.bias_add %3, %2 {dist.arena_offsets = array<i64: 1024>} : tensor<8x2x16xf32>, tensor<16xf32>
  %5 = tfm.cross_entropy %4, %arg1 ignore_index -100 {dist.arena_offsets = array<i64: 320>} : (tensor<8x2x16xf32>, tensor<8x2xi64>) -> tensor<f32>
  %6 = tfm.fill 0.000000e+00 {dist.arena_offsets = array<i64: 0>} : tensor<8x2x4xf32>
  dist.send %6 on @mesh["pp"] offset -1 : tensor<8x2x4xf32>
  %7 = tfm.fill 0.000000e+00 {dist.arena_offsets = array<i64: 0>} : tensor<16x4xf32>
  %8 = tfm.fill 0.000000e+00 {dist.arena_offsets = array<i64: 256>} : tensor<16xf32>
  return %5, %7, %8 : tensor<f32>, tensor<16x4xf32>, tensor<16xf32>
}

// RUN: sp-opt %s -split-input-file -sp-plan-buffers -convert-sp-to-runtime -verify-diagnostics | FileCheck %s

// The coalesced reductions pass their element type (SPRT_DTYPE_F32 = 0,
// SPRT_DTYPE_BF16 = 1) after the pointer arrays: a sum of bf16 operands is
// reduced in bf16 by the runtime (sp-sync-grads grad-reduce-dtype=bf16),
// its workspace the bf16 bytes: (8 + 16) x 2 = 48 for the all-reduce, plus
// one rank's half (24) for the reduce-scatter; (8 + 16) x 4 = 96 in f32.
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK: %[[WS1:.*]] = llvm.mlir.constant(48 : i64) : i64
// CHECK-NEXT: %[[N1:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SUM:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[AX:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @sprt_all_reduce_coalesced(%[[N1]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BF16]], %[[SUM]], %[[AX]], %{{.*}}, %[[WS1]]) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, !llvm.ptr, i64) -> ()
// CHECK: %[[WS2:.*]] = llvm.mlir.constant(72 : i64) : i64
// CHECK-NEXT: %[[N2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[BF16B:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[AX2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @sprt_reduce_scatter_coalesced(%[[N2]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BF16B]], %[[AX2]], %{{.*}}, %[[WS2]]) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr, i64) -> ()
// CHECK: %[[WS3:.*]] = llvm.mlir.constant(96 : i64) : i64
// CHECK-NEXT: %[[N3:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[SUM3:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[AX3:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @sprt_all_reduce_coalesced(%[[N3]], %{{.*}}, %{{.*}}, %{{.*}}, %[[F32]], %[[SUM3]], %[[AX3]], %{{.*}}, %[[WS3]])
dist.mesh @mesh ["dp" = 2] roles [data]
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %a = tfm.fill 1.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %b = tfm.fill 1.0 : tensor<4x4xf32, #dist.layout<@mesh, dp = P>>
  %a16 = tfm.convert %a : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xbf16, #dist.layout<@mesh, dp = P>>
  %b16 = tfm.convert %b : tensor<4x4xf32, #dist.layout<@mesh, dp = P>> -> tensor<4x4xbf16, #dist.layout<@mesh, dp = P>>
  %r:2 = dist.all_reduce_coalesced %a16, %b16 on @mesh["dp"] sum : (tensor<8xbf16, #dist.layout<@mesh, dp = P>>, tensor<4x4xbf16, #dist.layout<@mesh, dp = P>>) -> (tensor<8xbf16>, tensor<4x4xbf16>)
  %s:2 = dist.reduce_scatter_coalesced %a16, %b16 on @mesh["dp"] : (tensor<8xbf16, #dist.layout<@mesh, dp = P>>, tensor<4x4xbf16, #dist.layout<@mesh, dp = P>>) -> (tensor<4xbf16, #dist.layout<@mesh, dp = S(0)>>, tensor<2x4xbf16, #dist.layout<@mesh, dp = S(0)>>)
  %f:2 = dist.all_reduce_coalesced %a, %b on @mesh["dp"] sum : (tensor<8xf32, #dist.layout<@mesh, dp = P>>, tensor<4x4xf32, #dist.layout<@mesh, dp = P>>) -> (tensor<8xf32>, tensor<4x4xf32>)
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// A bf16 max is no sum: the runtime has no bf16 max, so it must compute in
// f32 (sp-legalize-precision).
dist.mesh @mesh ["dp" = 2] roles [data]
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %a = tfm.fill 1.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %a16 = tfm.convert %a : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xbf16, #dist.layout<@mesh, dp = P>>
  // expected-error @+1 {{'dist.all_reduce_coalesced' op uses 'bf16', which the runtime computes in f32: run sp-legalize-precision first}}
  %r = dist.all_reduce_coalesced %a16 on @mesh["dp"] max : (tensor<8xbf16, #dist.layout<@mesh, dp = P>>) -> tensor<8xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// f16 operands are not reduced natively either.
dist.mesh @mesh ["dp" = 2] roles [data]
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %a = tfm.fill 1.0 : tensor<8xf32, #dist.layout<@mesh, dp = P>>
  %a16 = tfm.convert %a : tensor<8xf32, #dist.layout<@mesh, dp = P>> -> tensor<8xf16, #dist.layout<@mesh, dp = P>>
  // expected-error @+1 {{'dist.reduce_scatter_coalesced' op uses 'f16', which the runtime computes in f32: run sp-legalize-precision first}}
  %r = dist.reduce_scatter_coalesced %a16 on @mesh["dp"] : (tensor<8xf16, #dist.layout<@mesh, dp = P>>) -> tensor<4xf16, #dist.layout<@mesh, dp = S(0)>>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// RUN: sp-opt %s -sp-plan-buffers -convert-sp-to-runtime -cse | FileCheck %s

// The norms and the cross-entropy of a bf16 program read and write their
// tensors as stored (StoragePrecisionOpInterface): a norm's pointers are
// each followed by its tensor's element type (SPRT_DTYPE_F32 = 0, BF16 = 1)
// in a call of the typed kernel, then the rows, the row width and eps; the
// loss's logits (and its gradient's dlogits) likewise; all-f32 ones call
// the f32 kernels as before; the bias gradient likewise. (-cse leaves one
// constant of each value.)
// CHECK-LABEL: llvm.func @seqpar_step(
// CHECK-DAG: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[ROWS:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-DAG: %[[H:.*]] = llvm.mlir.constant(8 : i64) : i64
func.func @forward(%ids: tensor<8x2xi64>, %labels: tensor<8x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x32 = tfm.fill 1.0 : tensor<8x2x8xf32>
  %x = tfm.convert %x32 : tensor<8x2x8xf32> -> tensor<8x2x8xbf16>
  %w32 = tfm.fill 1.0 : tensor<8xf32>
  %w = tfm.convert %w32 : tensor<8xf32> -> tensor<8xbf16>
  // CHECK: llvm.call @sprt_layer_norm_typed(%[[X:[0-9]+]], %[[BF16]], %[[W:[0-9]+]], %[[BF16]], %[[W]], %[[BF16]], %[[Y:[0-9]+]], %[[BF16]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %y = tfm.layer_norm %x, %w, %w eps 1.0e-05 : (tensor<8x2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<8x2x8xbf16>
  // Without a bias: a null pointer (its dtype argument is 0).
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: llvm.call @sprt_layer_norm_typed(%[[X]], %[[BF16]], %[[W]], %[[BF16]], %[[NULL]], %[[F32]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]], %{{.*}})
  %y2 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x8xbf16>, tensor<8xbf16>) -> tensor<8x2x8xbf16>
  // CHECK: llvm.call @sprt_rms_norm_typed(%[[X]], %[[BF16]], %[[W]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %r = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x8xbf16>, tensor<8xbf16>) -> tensor<8x2x8xbf16>
  // The weight gradients may be f32 (a partial sum's).
  // CHECK: llvm.call @sprt_layer_norm_grad_typed(%[[Y]], %[[BF16]], %[[X]], %[[BF16]], %[[W]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %dx, %dw, %db = tfm.layer_norm_grad %y, %x, %w eps 1.0e-05 : (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8xbf16>) -> (tensor<8x2x8xbf16>, tensor<8xf32>, tensor<8xbf16>)
  // CHECK: llvm.call @sprt_rms_norm_grad_typed(%[[Y]], %[[BF16]], %[[X]], %[[BF16]], %[[W]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %rx, %rw = tfm.rms_norm_grad %y, %x, %w eps 1.0e-06 : (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8xbf16>) -> (tensor<8x2x8xbf16>, tensor<8xbf16>)
  // With a residual (tfm-fuse-elementwise): the _add kernels, the residual
  // and its type after the weight's; typed even where every tensor is f32.
  // CHECK: llvm.call @sprt_layer_norm_grad_add_typed(%[[Y]], %[[BF16]], %[[X]], %[[BF16]], %[[W]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %{{[0-9]+}}, %[[BF16]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %sx, %sw, %sb = tfm.layer_norm_grad %y, %x, %w residual %rx eps 1.0e-05 : (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8xbf16>, tensor<8x2x8xbf16>) -> (tensor<8x2x8xbf16>, tensor<8xf32>, tensor<8xbf16>)
  // CHECK: llvm.call @sprt_rms_norm_grad_add_typed(%{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %tx, %tw = tfm.rms_norm_grad %x32, %x32, %w32 residual %x32 eps 1.0e-06 : (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8xf32>, tensor<8x2x8xf32>) -> (tensor<8x2x8xf32>, tensor<8xf32>)
  // A residual sum and its norm (tfm-fuse-elementwise): x, the residual,
  // the weight (and bias), the sum and the result, each with its type;
  // typed even where every tensor is f32.
  // CHECK: llvm.call @sprt_add_layer_norm_typed(%[[X]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %[[W]], %[[BF16]], %[[W]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %as, %ay = tfm.add_layer_norm %x, %rx, %w, %w eps 1.0e-05 : (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>)
  // CHECK: llvm.call @sprt_add_rms_norm_typed(%{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %{{[0-9]+}}, %[[F32]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, f64) -> ()
  %bs, %by = tfm.add_rms_norm %x32, %tx, %w32 eps 1.0e-06 : (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  // With dropout: the pointers of x and the residual, the weight and bias
  // with their types, the sum and the result (its type), the dropout's
  // geometry, rate and stream (rank 3, local [8, 2, 8], no axes), the
  // sum's type and eps.
  // CHECK: llvm.call @sprt_op_dropout_add_layer_norm_typed(%[[X]], %{{[0-9]+}}, %[[W]], %[[BF16]], %[[W]], %[[BF16]], %{{[0-9]+}}, %{{[0-9]+}}, %[[BF16]], %{{.*}}, %[[H]], %{{.*}}, %[[H]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BF16]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, i32, i64, i64, i64, i32, i32, i32, i32, f64, i64, i32, f64) -> ()
  %ds, %dy = tfm.add_layer_norm %x, %rx, %w, %w dropout 1.0e-01 stream 3 eps 1.0e-05 : (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> (tensor<8x2x8xbf16>, tensor<8x2x8xbf16>)
  // CHECK: llvm.call @sprt_op_dropout_add_rms_norm_typed({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, i32, i32, i64, i64, i64, i32, i32, i32, i32, f64, i64, i32, f64) -> ()
  %es, %ey = tfm.add_rms_norm %x32, %tx, %w32 dropout 1.0e-01 stream 4 eps 1.0e-06 : (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  // CHECK: llvm.call @sprt_cross_entropy_typed(%[[Y]], %[[BF16]], %[[LABELS:[a-z0-9]+]], %{{[0-9]+}}, %[[LOSS:[0-9]+]], %[[ROWS]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
  %loss = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<8x2x8xbf16>, tensor<8x2xi64>) -> tensor<f32>
  // CHECK: llvm.call @sprt_cross_entropy_grad_typed(%[[Y]], %[[BF16]], %[[LABELS]], %[[LOSS]], %{{.*}}, %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i64, i64, i64) -> ()
  %dlogits = tfm.cross_entropy_grad %y, %labels, %loss ignore_index -100 : (tensor<8x2x8xbf16>, tensor<8x2xi64>, tensor<f32>) -> tensor<8x2x8xbf16>
  // The bias gradient: dy as stored, its sums rounded into bf16.
  // CHECK: llvm.call @sprt_bias_grad_typed(%[[Y]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[H]]) : (!llvm.ptr, i32, !llvm.ptr, i32, i64, i64) -> ()
  %dbias = tfm.bias_grad %y : tensor<8x2x8xbf16> -> tensor<8xbf16>
  // The embedding copies bf16 rows as stored: ids, table, result, the
  // tokens, vocabulary, width, the vocabulary's axis (-1) and the dtype.
  // CHECK: llvm.call @sprt_op_embedding_typed(%[[IDS:[a-z0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, %[[ROWS]], %[[ROWS]], %[[H]], %{{.*}}, %[[BF16]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32) -> ()
  %tab = tfm.fill 1.0 : tensor<16x8xf32>
  %tab16 = tfm.convert %tab : tensor<16x8xf32> -> tensor<16x8xbf16>
  %emb = tfm.embedding %ids, %tab16 : (tensor<8x2xi64>, tensor<16x8xbf16>) -> tensor<8x2x8xbf16>
  // Its gradient reads dy as stored and writes each type: bf16, then f32.
  // CHECK: llvm.call @sprt_op_embedding_grad_typed(%[[IDS]], %[[Y]], %[[BF16]], %{{[0-9]+}}, %[[BF16]], %[[ROWS]], %[[ROWS]], %[[H]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i32, i64, i64, i64, i32) -> ()
  %dtab = tfm.embedding_grad %ids, %y : (tensor<8x2xi64>, tensor<8x2x8xbf16>) -> tensor<16x8xbf16>
  // CHECK: llvm.call @sprt_op_embedding_grad_typed(%[[IDS]], %[[Y]], %[[BF16]], %{{[0-9]+}}, %[[F32]], %[[ROWS]], %[[ROWS]], %[[H]], %{{.*}})
  %dtab32 = tfm.embedding_grad %ids, %y : (tensor<8x2xi64>, tensor<8x2x8xbf16>) -> tensor<16x8xf32>
  // All f32: the f32 kernels.
  // CHECK: llvm.call @sprt_op_embedding(%[[IDS]], {{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32) -> ()
  %emb32 = tfm.embedding %ids, %tab : (tensor<8x2xi64>, tensor<16x8xf32>) -> tensor<8x2x8xf32>
  // CHECK: llvm.call @sprt_op_embedding_grad(%[[IDS]], {{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32) -> ()
  %dtabf = tfm.embedding_grad %ids, %x32 : (tensor<8x2xi64>, tensor<8x2x8xf32>) -> tensor<16x8xf32>
  // An all-f32 norm calls the f32 kernel.
  // CHECK: llvm.call @sprt_layer_norm_f32({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, f64) -> ()
  %y3 = tfm.layer_norm %x32, %w32 eps 1.0e-05 : (tensor<8x2x8xf32>, tensor<8xf32>) -> tensor<8x2x8xf32>
  // CHECK: llvm.call @sprt_cross_entropy_f32({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
  %loss32 = tfm.cross_entropy %y3, %labels ignore_index -100 : (tensor<8x2x8xf32>, tensor<8x2xi64>) -> tensor<f32>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of the backward ops (tfm-autodiff) and the
// optimizer ops (sp-optimizer).

//===----------------------------------------------------------------------===//
// tfm.linear_grad_input
//===----------------------------------------------------------------------===//

func.func @weight_rank(%dy: tensor<8x2x48xf32>, %w: tensor<48xf32>) {
  // expected-error @+1 {{the weight must have rank 2 and dy rank >= 1}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x48xf32>, tensor<48xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @dy_rank(%dy: tensor<f32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{the weight must have rank 2 and dy rank >= 1}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<f32>, tensor<48x16xf32>) -> tensor<16xf32>
  return
}

// -----

// An [out, in] weight read as [in, out]: out is dimension 0.
func.func @out_features(%dy: tensor<8x2x16xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{dy's last dimension must be the weight's 48 output features, got [8, 2, 16]}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x16xf32>, tensor<48x16xf32>) -> tensor<8x2x48xf32>
  return
}

// -----

// With in_out, out is dimension 1.
func.func @out_features_in_out(%dy: tensor<8x2x48xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{dy's last dimension must be the weight's 16 output features, got [8, 2, 48]}}
  %0 = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @dx_features(%dy: tensor<8x2x48xf32>, %w: tensor<16x48xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x48xf32>'}}
  %0 = tfm.linear_grad_input %dy, %w weight_layout in_out : (tensor<8x2x48xf32>, tensor<16x48xf32>) -> tensor<8x2x48xf32>
  return
}

// -----

func.func @dx_leading(%dy: tensor<8x2x48xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<2x8x16xf32>'}}
  %0 = tfm.linear_grad_input %dy, %w : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @bad_layout(%dy: tensor<8x2x48xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'weight_layout' [out_in, in_out]}}
  %0 = tfm.linear_grad_input %dy, %w weight_layout io : (tensor<8x2x48xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.linear_grad_weight
//===----------------------------------------------------------------------===//

// -----

func.func @leading_dims(%x: tensor<8x2x16xf32>, %dy: tensor<8x4x48xf32>) {
  // expected-error @+1 {{input [8, 2, 16] and dy [8, 4, 48] must have the same leading dimensions}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xf32>, tensor<8x4x48xf32>) -> tensor<48x16xf32>
  return
}

// -----

func.func @rank_differs(%x: tensor<16x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{input [16, 16] and dy [8, 2, 48] must have the same leading dimensions}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<16x16xf32>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  return
}

// -----

func.func @scalar_input(%x: tensor<f32>, %dy: tensor<f32>) {
  // expected-error @+1 {{input [] and dy [] must have the same leading dimensions}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<f32>, tensor<f32>) -> tensor<1x1xf32>
  return
}

// -----

// The out_in gradient is [out, in], not [in, out].
func.func @out_in_shape(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dweight must have shape [48, 16] and element type 'f32', got 'tensor<16x48xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<16x48xf32>
  return
}

// -----

// The in_out gradient is [in, out], not [out, in].
func.func @in_out_shape(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dweight must have shape [16, 48] and element type 'f32', got 'tensor<48x16xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy weight_layout in_out : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<48x16xf32>
  return
}

// -----

func.func @dweight_rank(%x: tensor<8x2x16xf32>, %dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dweight must have shape [48, 16] and element type 'f32', got 'tensor<1x48x16xf32>'}}
  %0 = tfm.linear_grad_weight %x, %dy : (tensor<8x2x16xf32>, tensor<8x2x48xf32>) -> tensor<1x48x16xf32>
  return
}

// -----

func.func @scalar_dy(%dy: tensor<f32>) {
  // expected-error @+1 {{dy must have rank >= 1}}
  %0 = tfm.bias_grad %dy : tensor<f32> -> tensor<1xf32>
  return
}

// -----

func.func @size(%dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dbias must have shape [48] and element type 'f32', got 'tensor<16xf32>'}}
  %0 = tfm.bias_grad %dy : tensor<8x2x48xf32> -> tensor<16xf32>
  return
}

// -----

func.func @rank(%dy: tensor<8x2x48xf32>) {
  // expected-error @+1 {{dbias must have shape [48] and element type 'f32', got 'tensor<2x48xf32>'}}
  %0 = tfm.bias_grad %dy : tensor<8x2x48xf32> -> tensor<2x48xf32>
  return
}

// -----

// A bf16 / f16 gradient's sums may be f32 (a partial sum), nothing else.
func.func @element_type(%dy: tensor<8x2x48xf16>) {
  // expected-error @+1 {{dbias must have dy's element type ('f16') or f32, not 'bf16'}}
  %0 = tfm.bias_grad %dy : tensor<8x2x48xf16> -> tensor<48xbf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.layer_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @dy_shape(%dy: tensor<2x8x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dy and the input must have the same shape}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<2x8x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @dx_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<16x16xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @dx_element_type(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x16xbf16>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xbf16>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @residual_type(%dy: tensor<8x2x16xbf16>, %x: tensor<8x2x16xbf16>, %w: tensor<16xbf16>, %r: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the residual must have dx's type ('tensor<8x2x16xbf16>'), not 'tensor<8x2x16xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w residual %r eps 1.0e-05 : (tensor<8x2x16xbf16>, tensor<8x2x16xbf16>, tensor<16xbf16>, tensor<8x2x16xf32>) -> (tensor<8x2x16xbf16>, tensor<16xbf16>, tensor<16xbf16>)
  return
}

// -----

func.func @rms_residual_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %r: tensor<2x8x16xf32>) {
  // expected-error @+1 {{the residual must have dx's type ('tensor<8x2x16xf32>'), not 'tensor<2x8x16xf32>'}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w residual %r eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>, tensor<2x8x16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @weight_size(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{the weight must have shape [16] and element type 'f32', got 'tensor<8xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

// A weight gradient has the input's element type, or f32 (a partial sum of
// bf16 / f16 weights'), nothing else.
func.func @weight_grad_element_type(%dy: tensor<8x2x16xbf16>, %x: tensor<8x2x16xbf16>, %w: tensor<16xbf16>) {
  // expected-error @+1 {{a weight gradient must have shape [16] and element type 'bf16', got 'tensor<16xf16>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xbf16>, tensor<8x2x16xbf16>, tensor<16xbf16>) -> (tensor<8x2x16xbf16>, tensor<16xf16>, tensor<16xf32>)
  return
}

// -----

func.func @dweight_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{a weight gradient must have shape [16] and element type 'f32', got 'tensor<1x16xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<1x16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @dbias_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{a weight gradient must have shape [16] and element type 'f32', got 'tensor<32xf32>'}}
  %0:3 = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>, tensor<32xf32>)
  return
}

//===----------------------------------------------------------------------===//
// tfm.rms_norm_grad
//===----------------------------------------------------------------------===//

// -----

func.func @dy_shape(%dy: tensor<8x2x32xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dy and the input must have the same shape}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  return
}

// -----

// The input needs a last (normalised) dimension.
func.func @scalar_input(%dy: tensor<f32>, %x: tensor<f32>, %w: tensor<1xf32>) {
  // expected-error @+1 {{dy and the input must have the same shape}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<f32>, tensor<f32>, tensor<1xf32>) -> (tensor<f32>, tensor<1xf32>)
  return
}

// -----

func.func @dx_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x8xf32>'}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x8xf32>, tensor<16xf32>)
  return
}

// -----

func.func @weight_element_type(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xbf16>) {
  // expected-error @+1 {{the weight must have shape [16] and element type 'f32', got 'tensor<16xbf16>'}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xbf16>) -> (tensor<8x2x16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @dweight_shape(%dy: tensor<8x2x16xf32>, %x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{a weight gradient must have shape [16] and element type 'f32', got 'tensor<8xf32>'}}
  %0:2 = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<16xf32>) -> (tensor<8x2x16xf32>, tensor<8xf32>)
  return
}

//===----------------------------------------------------------------------===//
// tfm.gelu_grad / tfm.silu_grad
//===----------------------------------------------------------------------===//

// -----

func.func @gelu_input_type(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xbf16>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.gelu_grad"(%dy, %x) {approximate = 1 : i32} : (tensor<8x2x64xf32>, tensor<8x2x64xbf16>) -> tensor<8x2x64xf32>
  return
}

// -----

func.func @gelu_result_type(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.gelu_grad"(%dy, %x) {approximate = 0 : i32} : (tensor<8x2x64xf32>, tensor<8x2x64xf32>) -> tensor<8x128xf32>
  return
}

// -----

func.func @gelu_approximation(%dy: tensor<8x2x64xf32>, %x: tensor<8x2x64xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = tfm.gelu_grad %dy, %x approximate erf : tensor<8x2x64xf32>
  return
}

// -----

func.func @silu_input_type(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x44xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.silu_grad"(%dy, %x) : (tensor<8x2x88xf32>, tensor<8x2x44xf32>) -> tensor<8x2x88xf32>
  return
}

// -----

func.func @silu_result_type(%dy: tensor<8x2x88xf32>, %x: tensor<8x2x88xf32>) {
  // expected-error @+1 {{failed to verify that all of {dy, input, dx} have same type}}
  %0 = "tfm.silu_grad"(%dy, %x) : (tensor<8x2x88xf32>, tensor<8x2x88xf32>) -> tensor<8x2x88xf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.scale / tfm.fill
//===----------------------------------------------------------------------===//

// -----

func.func @scale_result_type(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.scale"(%x) {factor = 2.0 : f64} : (tensor<8x2x16xf32>) -> tensor<8x2x16xbf16>
  return
}

// -----

func.func @scale_integer(%x: tensor<8xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8xi32>'}}
  %0 = tfm.scale %x by 2.0 : tensor<8xi32>
  return
}

// -----

func.func @fill_integer() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8xi64>'}}
  %0 = tfm.fill 0.0 : tensor<8xi64>
  return
}

// -----

// `times` is the loss scale: a tfm.hyperparameter loss_scale.
func.func @fill_times_not_loss_scale() {
  %lr = tfm.hyperparameter lr default 0.1
  // expected-error @+1 {{'times' must be read by tfm.hyperparameter loss_scale, got hyperparameter lr}}
  %0 = tfm.fill 1.0 times %lr : tensor<f32>
  return
}

// -----

func.func @fill_times_argument(%s: f64) {
  // expected-error @+1 {{'times' must be read by tfm.hyperparameter loss_scale, got a block argument}}
  %0 = tfm.fill 1.0 times %s : tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.embedding_grad
//===----------------------------------------------------------------------===//

// -----

func.func @dy_rank(%ids: tensor<8x2xi64>, %dy: tensor<16x16xf32>) {
  // expected-error @+1 {{dy must have the ids' shape followed by the hidden size, got [16, 16]}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<16x16xf32>) -> tensor<64x16xf32>
  return
}

// -----

func.func @dy_tokens(%ids: tensor<8x2xi64>, %dy: tensor<2x8x16xf32>) {
  // expected-error @+1 {{dy must have the ids' shape followed by the hidden size, got [2, 8, 16]}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<2x8x16xf32>) -> tensor<64x16xf32>
  return
}

// -----

func.func @table_rank(%ids: tensor<8x2xi64>, %dy: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the table gradient must be [vocab, 16], got 'tensor<1024xf32>'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<8x2x16xf32>) -> tensor<1024xf32>
  return
}

// -----

func.func @table_hidden(%ids: tensor<8x2xi64>, %dy: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the table gradient must be [vocab, 16], got 'tensor<64x32xf32>'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<8x2x16xf32>) -> tensor<64x32xf32>
  return
}

// -----

// dy's type or f32 (a partial sum of bf16 gradients), nothing else.
func.func @table_element_type(%ids: tensor<8x2xi64>, %dy: tensor<8x2x16xbf16>) {
  // expected-error @+1 {{the table gradient must have dy's element type ('bf16') or f32, not 'f16'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xi64>, tensor<8x2x16xbf16>) -> tensor<64x16xf16>
  return
}

// -----

func.func @float_ids(%ids: tensor<8x2xf32>, %dy: tensor<8x2x16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.embedding_grad %ids, %dy : (tensor<8x2xf32>, tensor<8x2x16xf32>) -> tensor<64x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.qkv_concat
//===----------------------------------------------------------------------===//

// -----

func.func @heads_multiple(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads must be a positive multiple of kv_heads and head_dim positive}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 3 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

// -----

func.func @kv_heads_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads must be a positive multiple of kv_heads and head_dim positive}}
  %0 = tfm.qkv_concat %d, %d, %d packing heads heads 4 kv_heads 0 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

// -----

func.func @head_dim_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads must be a positive multiple of kv_heads and head_dim positive}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 0 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

// -----

func.func @dq_features(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dq must have shape [8, 2, 32] and element type 'f32', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 8 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x96xf32>
  return
}

// -----

// Grouped-query: k and v have kv_heads * head_dim = 16 features.
func.func @dk_features(%dq: tensor<8x2x32xf32>, %dkv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dk must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x32xf32>'}}
  %0 = tfm.qkv_concat %dq, %dkv, %dkv packing blocks heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @dk_tokens(%dq: tensor<8x2x32xf32>, %dk: tensor<2x8x16xf32>, %dv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dk must have shape [8, 2, 16] and element type 'f32', got 'tensor<2x8x16xf32>'}}
  %0 = tfm.qkv_concat %dq, %dk, %dv packing blocks heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<2x8x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @dv_element_type(%dq: tensor<8x2x32xf32>, %dk: tensor<8x2x16xf32>, %dv: tensor<8x2x16xbf16>) {
  // expected-error @+1 {{dv must have shape [8, 2, 16] and element type 'f32', got 'tensor<8x2x16xbf16>'}}
  %0 = tfm.qkv_concat %dq, %dk, %dv packing heads heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xbf16> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_features(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the result must have shape [8, 2, 48] and element type 'f32', got 'tensor<8x2x64xf32>'}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_element_type(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{the result must have shape [8, 2, 48] and element type 'f32', got 'tensor<8x2x48xbf16>'}}
  %0 = tfm.qkv_concat %d, %d, %d packing heads heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xbf16>
  return
}

// -----

func.func @bad_packing(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'packing' [blocks, heads]}}
  %0 = tfm.qkv_concat %d, %d, %d packing interleaved heads 4 kv_heads 4 head_dim 4 : tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x48xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.repeat_heads_grad
//===----------------------------------------------------------------------===//

// -----

func.func @factor_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 0 : tensor<8x2x16xf32> -> tensor<8x2x8xf32>
  return
}

// -----

func.func @heads_zero(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1}}
  %0 = tfm.repeat_heads_grad %d heads 0 head_dim 4 factor 2 : tensor<8x2x16xf32> -> tensor<8x2x8xf32>
  return
}

// -----

func.func @dy_features(%d: tensor<8x2x8xf32>) {
  // expected-error @+1 {{dy's last dimension must be heads * factor * head_dim = 16}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 2 : tensor<8x2x8xf32> -> tensor<8x2x8xf32>
  return
}

// -----

func.func @scalar_dy(%d: tensor<f32>) {
  // expected-error @+1 {{dy's last dimension must be heads * factor * head_dim = 1}}
  %0 = tfm.repeat_heads_grad %d heads 1 head_dim 1 factor 1 : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @dx_features(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 8] and element type 'f32', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 2 : tensor<8x2x16xf32> -> tensor<8x2x16xf32>
  return
}

// -----

func.func @dx_element_type(%d: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dx must have shape [8, 2, 8] and element type 'f32', got 'tensor<8x2x8xf16>'}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 4 factor 2 : tensor<8x2x16xf32> -> tensor<8x2x8xf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.attention_grad
//===----------------------------------------------------------------------===//

// -----

func.func @dout_type(%do: tensor<8x2x16xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dout must have q's type}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv heads 4 kv_heads 2 head_dim 8 {causal} : tensor<8x2x16xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @dout_element_type(%do: tensor<8x2x32xbf16>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dout must have q's type}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xbf16>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @saved_out_only(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{saved needs both the forward's result and its lse}}
  %0:3 = "tfm.attention_grad"(%do, %q, %kv, %kv, %do) <{head_dim = 8 : i64, num_heads = 4 : i64, num_kv_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0>}> : (tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x32xf32>) -> (tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>)
  return
}

// -----

func.func @saved_out_type(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>, %o: tensor<8x2x32xbf16>, %lse: tensor<8x2x4xf32>) {
  // expected-error @+1 {{the saved result must have q's type}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv saved(%o, %lse) heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> saved(tensor<8x2x32xbf16>, tensor<8x2x4xf32>) -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @saved_lse_shape(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>, %lse: tensor<8x2x2xf32>) {
  // expected-error @+1 {{the saved lse must be 'tensor<8x2x4xf32>' ([s, b, heads] f32 with q's encoding), got 'tensor<8x2x2xf32>'}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv saved(%do, %lse) heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> saved(tensor<8x2x32xf32>, tensor<8x2x2xf32>) -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @dq_type(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dq must have q's type, dk and dv the shapes and element types of k and v}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

// Grouped-query: dk has k's 16 features, not q's 32.
func.func @dk_type(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>) {
  // expected-error @+1 {{dq must have q's type, dk and dv the shapes and element types of k and v}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @dv_type(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>, %pos: tensor<8x2xi64>) {
  // expected-error @+1 {{dq must have q's type, dk and dv the shapes and element types of k and v}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv positions %pos heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xi64> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xbf16>
  return
}

// -----

func.func @float_positions(%do: tensor<8x2x32xf32>, %q: tensor<8x2x32xf32>, %kv: tensor<8x2x16xf32>, %pos: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #4 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0:3 = tfm.attention_grad %do, %q, %kv, %kv positions %pos heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2xf32> -> tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy_grad
//===----------------------------------------------------------------------===//

// -----

func.func @labels_shape(%l: tensor<8x2x64xf32>, %lab: tensor<2x8xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{labels must have the logits' shape without the vocabulary}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xf32>, tensor<2x8xi64>, tensor<f32>) -> tensor<8x2x64xf32>
  return
}

// -----

func.func @labels_rank(%l: tensor<8x2x64xf32>, %lab: tensor<8x2x64xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{labels must have the logits' shape without the vocabulary}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2x64xi64>, tensor<f32>) -> tensor<8x2x64xf32>
  return
}

// -----

func.func @scalar_logits(%l: tensor<f32>, %lab: tensor<i64>, %d: tensor<f32>) {
  // expected-error @+1 {{labels must have the logits' shape without the vocabulary}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<f32>, tensor<i64>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @result_type(%l: tensor<8x2x64xbf16>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{the result must have the logits' type}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xbf16>, tensor<8x2xi64>, tensor<f32>) -> tensor<8x2x64xf32>
  return
}

// -----

func.func @dloss_not_scalar(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>, %d: tensor<1xf32>) {
  // expected-error @+1 {{operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.cross_entropy_grad %l, %lab, %d ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<1xf32>) -> tensor<8x2x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy_from_stats_grad
//===----------------------------------------------------------------------===//

// -----

func.func @sumexp_shape(%se: tensor<2x8xf32>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{sumexp and the gradients must have the labels' shape [8, 2]}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<2x8xf32>, tensor<8x2xi64>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2xf32>
  return
}

// -----

func.func @dsumexp_shape(%se: tensor<8x2xf32>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{sumexp and the gradients must have the labels' shape [8, 2]}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32> -> tensor<16xf32>, tensor<8x2xf32>
  return
}

// -----

func.func @dlabel_logit_shape(%se: tensor<8x2xf32>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{sumexp and the gradients must have the labels' shape [8, 2]}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2x1xf32>
  return
}

// -----

func.func @dloss_not_scalar(%se: tensor<8x2xf32>, %lab: tensor<8x2xi64>, %d: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<8x2xf32>'}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32> -> tensor<8x2xf32>, tensor<8x2xf32>
  return
}

// -----

// The statistics are f32 whatever the logits' element type.
func.func @sumexp_bf16(%se: tensor<8x2xbf16>, %lab: tensor<8x2xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0:2 = tfm.cross_entropy_from_stats_grad %se, %lab, %d ignore_index -100 : tensor<8x2xbf16>, tensor<8x2xi64>, tensor<f32> -> tensor<8x2xf32>, tensor<8x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.logits_sumexp_grad
//===----------------------------------------------------------------------===//

// -----

func.func @scalar_logits(%l: tensor<f32>, %m: tensor<f32>, %dse: tensor<f32>) {
  // expected-error @+1 {{logits must have rank >= 1}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @max_shape(%l: tensor<8x2x64xf32>, %m: tensor<8x2x1xf32>, %dse: tensor<8x2xf32>) {
  // expected-error @+1 {{max and dsumexp must have shape [8, 2]}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<8x2x64xf32>, tensor<8x2x1xf32>, tensor<8x2xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @dsumexp_shape(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>, %dse: tensor<16xf32>) {
  // expected-error @+1 {{max and dsumexp must have shape [8, 2]}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<8x2x64xf32>, tensor<8x2xf32>, tensor<16xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_type(%l: tensor<8x2x64xbf16>, %m: tensor<8x2xf32>, %dse: tensor<8x2xf32>) {
  // expected-error @+1 {{the result must have the logits' type}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<8x2x64xbf16>, tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_shape(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>, %dse: tensor<8x2xf32>) {
  // expected-error @+1 {{the result must have the logits' type}}
  %0 = tfm.logits_sumexp_grad %l, %m, %dse : tensor<8x2x64xf32>, tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x2x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.label_logit_grad
//===----------------------------------------------------------------------===//

// -----

func.func @dz_shape(%lab: tensor<8x2xi64>, %dz: tensor<2x8xf32>) {
  // expected-error @+1 {{dz must have the labels' shape and the result that shape followed by the vocabulary}}
  %0 = tfm.label_logit_grad %lab, %dz ignore_index -100 : tensor<8x2xi64>, tensor<2x8xf32> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_rank(%lab: tensor<8x2xi64>, %dz: tensor<8x2xf32>) {
  // expected-error @+1 {{dz must have the labels' shape and the result that shape followed by the vocabulary}}
  %0 = tfm.label_logit_grad %lab, %dz ignore_index -100 : tensor<8x2xi64>, tensor<8x2xf32> -> tensor<8x2xf32>
  return
}

// -----

func.func @result_tokens(%lab: tensor<8x2xi64>, %dz: tensor<8x2xf32>) {
  // expected-error @+1 {{dz must have the labels' shape and the result that shape followed by the vocabulary}}
  %0 = tfm.label_logit_grad %lab, %dz ignore_index -100 : tensor<8x2xi64>, tensor<8x2xf32> -> tensor<2x8x64xf32>
  return
}

// -----

func.func @dz_bf16(%lab: tensor<8x2xi64>, %dz: tensor<8x2xbf16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.label_logit_grad %lab, %dz ignore_index -100 : tensor<8x2xi64>, tensor<8x2xbf16> -> tensor<8x2x64xbf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.sum_squares / tfm.clip_scale
//===----------------------------------------------------------------------===//

// -----

func.func @sum_squares_not_scalar(%g: tensor<16x32xf32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.sum_squares %g : tensor<16x32xf32> -> tensor<1xf32>
  return
}

// -----

func.func @sum_squares_of_nothing() {
  // expected-error @+1 {{'tfm.sum_squares' op sums the squares of at least one tensor, got none}}
  %0 = "tfm.sum_squares"() : () -> tensor<f32>
  return
}

// -----

// The sum is f32 whatever the gradient's element type.
func.func @sum_squares_not_f32(%g: tensor<16x32xbf16>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<bf16>'}}
  %0 = tfm.sum_squares %g : tensor<16x32xbf16> -> tensor<bf16>
  return
}

// -----

func.func @clip_operand_not_scalar(%s: tensor<4xf32>) {
  %grad_clip = tfm.hyperparameter grad_clip default 1.0
  // expected-error @+1 {{operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<4xf32>'}}
  %0:2 = tfm.clip_scale %s max_norm %grad_clip : tensor<4xf32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @clip_result_not_f32(%s: tensor<f32>) {
  %grad_clip = tfm.hyperparameter grad_clip default 1.0
  // expected-error @+1 {{result #1 must be 0D tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0:2 = tfm.clip_scale %s max_norm %grad_clip : tensor<f32> -> tensor<f32>, tensor<f16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.sgd_update
//===----------------------------------------------------------------------===//

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @missing(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{@missing does not name a tfm.param}}
  tfm.sgd_update @missing, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func private @not_a_param()
func.func @updates_a_function(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{@not_a_param does not name a tfm.param}}
  tfm.sgd_update @not_a_param, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// The function does not read the parameter at all.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @not_read(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// Reading it in another function does not count.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @reads(%s: tensor<f32>) -> tensor<8x8xf32> {
  %w = tfm.get_param @w : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}
func.func @read_elsewhere(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
tfm.param @v : tensor<8x8xf32> init normal(0.02)
func.func @reads_another(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %v = tfm.get_param @v : tensor<8x8xf32>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// The function reads this rank's shard: a gradient of the whole parameter
// does not match it.
tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
func.func @whole_vs_shard(%g: tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  return
}

// -----

// The gradient must carry the parameter's layout.
tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
func.func @layout_dropped(%g: tensor<16x24xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<16x24xf32>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<16x24xf32>, tensor<f32>
  return
}

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @element_type(%g: tensor<8x8xbf16>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xbf16>', which is not how the function reads it}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %weight_decay : tensor<8x8xbf16>, tensor<f32>
  return
}

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @scale_not_scalar(%g: tensor<8x8xf32>, %s: tensor<f32>, %t: tensor<1xf32>) {
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  tfm.sgd_update @w, %g scale %t lr %lr weight_decay %weight_decay : tensor<8x8xf32>, tensor<1xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.adamw_update
//===----------------------------------------------------------------------===//

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @missing(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 1.0e-03
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{@missing does not name a tfm.param}}
  tfm.adamw_update @missing, %g scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @not_read(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 1.0e-03
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<8x8xf32>', which is not how the function reads it}}
  tfm.adamw_update @w, %g scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// A shard of another size than the one the function reads.
tfm.param @w : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init normal(0.02)
func.func @shard_shape(%g: tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>, %s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 1.0e-03
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<16x24xf32, #dist.layout<@mesh, tp = S(1)>>
  // expected-error @+1 {{updates @w with a gradient of type 'tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>', which is not how the function reads it}}
  tfm.adamw_update @w, %g scale %s lr %lr betas %beta1, %beta2 eps %eps weight_decay %weight_decay : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.hyperparameter, and the optimizer ops' hyperparameter operands
//===----------------------------------------------------------------------===//

// -----

func.func @lr_zero() {
  // expected-error @+1 {{default of lr must be finite and > 0, got 0.000000e+00}}
  %lr = tfm.hyperparameter lr default 0.0
  return
}

// -----

func.func @lr_negative() {
  // expected-error @+1 {{default of lr must be finite and > 0, got -1.000000e-03}}
  %lr = tfm.hyperparameter lr default -1.0e-03
  return
}

// -----

// The loss scale multiplies the seed and divides the update: 0 would skip
// every step.
func.func @loss_scale_zero() {
  // expected-error @+1 {{default of loss_scale must be finite and > 0, got 0.000000e+00}}
  %s = tfm.hyperparameter loss_scale default 0.0
  return
}

// -----

func.func @eps_zero() {
  // expected-error @+1 {{default of eps must be finite and > 0, got 0.000000e+00}}
  %eps = tfm.hyperparameter eps default 0.0
  return
}

// -----

func.func @eps_negative() {
  // expected-error @+1 {{default of eps must be finite and > 0, got -1.000000e-08}}
  %eps = tfm.hyperparameter eps default -1.0e-08
  return
}

// -----

func.func @weight_decay_negative() {
  // expected-error @+1 {{default of weight_decay must be finite and >= 0, got -1.000000e-02}}
  %wd = tfm.hyperparameter weight_decay default -0.01
  return
}

// -----

func.func @max_norm_negative() {
  // expected-error @+1 {{default of grad_clip must be finite and >= 0, got -1.000000e+00}}
  %clip = tfm.hyperparameter grad_clip default -1.0
  return
}

// -----

func.func @lr_inf() {
  // expected-error @+1 {{default of lr must be finite and > 0, got INF}}
  %lr = tfm.hyperparameter lr default 0x7FF0000000000000
  return
}

// -----

func.func @beta1_one() {
  // expected-error @+1 {{default of beta1 must be in [0, 1), got 1.000000e+00}}
  %b = tfm.hyperparameter beta1 default 1.0
  return
}

// -----

func.func @beta2_one() {
  // expected-error @+1 {{default of beta2 must be in [0, 1), got 1.000000e+00}}
  %b = tfm.hyperparameter beta2 default 1.0
  return
}

// -----

func.func @beta1_negative() {
  // expected-error @+1 {{default of beta1 must be in [0, 1), got -1.000000e-01}}
  %b = tfm.hyperparameter beta1 default -0.1
  return
}

// -----

func.func @beta2_above_one() {
  // expected-error @+1 {{default of beta2 must be in [0, 1), got 1.500000e+00}}
  %b = tfm.hyperparameter beta2 default 1.5
  return
}

// -----

func.func @unknown_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [lr, beta1, beta2, eps, weight_decay, grad_clip, loss_scale]}}
  %m = tfm.hyperparameter momentum default 0.9
  return
}

// -----

// A block reads each hyperparameter once: two reads could give one name
// two defaults.
func.func @read_twice() {
  // expected-note @+1 {{the first read}}
  %lr = tfm.hyperparameter lr default 1.0e-03
  // expected-error @+1 {{reads hyperparameter lr a second time in its block}}
  %lr2 = tfm.hyperparameter lr default 2.0e-03
  return
}

// -----

// Each operand reads the hyperparameter of its name.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @swapped(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %lr = tfm.hyperparameter lr default 0.1
  %wd = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{'lr' must be read by tfm.hyperparameter lr, got hyperparameter weight_decay}}
  tfm.sgd_update @w, %g scale %s lr %wd weight_decay %lr : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @betas_swapped(%g: tensor<8x8xf32>, %s: tensor<f32>) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %lr = tfm.hyperparameter lr default 0.1
  %beta1 = tfm.hyperparameter beta1 default 0.9
  %beta2 = tfm.hyperparameter beta2 default 0.999
  %eps = tfm.hyperparameter eps default 1.0e-08
  %wd = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{'beta1' must be read by tfm.hyperparameter beta1, got hyperparameter beta2}}
  tfm.adamw_update @w, %g scale %s lr %lr betas %beta2, %beta1 eps %eps weight_decay %wd : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

// A value the runtime does not set per step (here an argument) is not a
// hyperparameter.
tfm.param @w : tensor<8x8xf32> init normal(0.02)
func.func @lr_argument(%g: tensor<8x8xf32>, %s: tensor<f32>, %lr: f64) {
  %w = tfm.get_param @w : tensor<8x8xf32>
  %wd = tfm.hyperparameter weight_decay default 0.0
  // expected-error @+1 {{'lr' must be read by tfm.hyperparameter lr, got a block argument}}
  tfm.sgd_update @w, %g scale %s lr %lr weight_decay %wd : tensor<8x8xf32>, tensor<f32>
  return
}

// -----

func.func @max_norm_not_grad_clip(%s: tensor<f32>) {
  %lr = tfm.hyperparameter lr default 0.1
  // expected-error @+1 {{'max_norm' must be read by tfm.hyperparameter grad_clip, got hyperparameter lr}}
  %0:2 = tfm.clip_scale %s max_norm %lr : tensor<f32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @clip_loss_scale_not_loss_scale(%s: tensor<f32>) {
  %clip = tfm.hyperparameter grad_clip default 1.0
  %lr = tfm.hyperparameter lr default 0.1
  // expected-error @+1 {{'loss_scale' must be read by tfm.hyperparameter loss_scale, got hyperparameter lr}}
  %0:2 = tfm.clip_scale %s max_norm %clip loss_scale %lr : tensor<f32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @clip_loss_scale_argument(%s: tensor<f32>, %ls: f64) {
  %clip = tfm.hyperparameter grad_clip default 1.0
  // expected-error @+1 {{'loss_scale' must be read by tfm.hyperparameter loss_scale, got a block argument}}
  %0:2 = tfm.clip_scale %s max_norm %clip loss_scale %ls : tensor<f32> -> tensor<f32>, tensor<f32>
  return
}

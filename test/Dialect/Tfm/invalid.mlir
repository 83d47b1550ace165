// RUN: sp-opt %s -split-input-file -verify-diagnostics

// One section per constraint of the tfm ops' descriptions.

//===----------------------------------------------------------------------===//
// tfm.param
//===----------------------------------------------------------------------===//

// expected-error @+1 {{parameter shape must be static and positive, got 'tensor<?x4xf32>'}}
tfm.param @p : tensor<?x4xf32> init zeros

// -----

// expected-error @+1 {{parameter shape must be static and positive, got 'tensor<4x0xf32>'}}
tfm.param @p : tensor<4x0xf32> init zeros

// -----

// expected-error @+1 {{attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
tfm.param @p : tensor<4xi32> init zeros

// -----

// expected-error @+1 {{attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
tfm.param @p : tensor<4xf64> init zeros

// -----

// expected-error @+1 {{attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
tfm.param @p : tensor<*xf32> init zeros

// -----

// expected-error @+1 {{normal init needs a standard deviation}}
tfm.param @p : tensor<4xf32> init normal

// -----

// expected-error @+1 {{normal init standard deviation must be > 0, got 0.000000e+00}}
tfm.param @p : tensor<4xf32> init normal(0.0)

// -----

// expected-error @+1 {{normal init standard deviation must be > 0, got -2.000000e-02}}
tfm.param @p : tensor<4xf32> init normal(-0.02)

// -----

// expected-error @+1 {{zeros init takes no standard deviation}}
tfm.param @p : tensor<4xf32> init zeros(0.02)

// -----

// expected-error @+1 {{ones init takes no standard deviation}}
tfm.param @p : tensor<4xf32> init ones(1.0)

// -----

// expected-error @+1 {{tie group name must not be empty}}
tfm.param @p : tensor<4xf32> init zeros tie ""

// -----

tfm.param @a : tensor<4x8xf32> init normal(0.02) tie "wte"
// expected-error @+1 {{tie group 'wte' mixes parameters of different type or init: @a is 'tensor<4x8xf32>'}}
tfm.param @b : tensor<8x4xf32> init normal(0.02) tie "wte"

// -----

tfm.param @a : tensor<4x8xf32> init normal(0.02) tie "wte"
// expected-error @+1 {{tie group 'wte' mixes parameters of different type or init}}
tfm.param @b : tensor<4x8xbf16> init normal(0.02) tie "wte"

// -----

tfm.param @a : tensor<4x8xf32> init normal(0.02) tie "wte"
// expected-error @+1 {{tie group 'wte' mixes parameters of different type or init}}
tfm.param @b : tensor<4x8xf32> init zeros tie "wte"

// -----

tfm.param @a : tensor<4x8xf32> init normal(0.02) tie "wte"
// expected-error @+1 {{tie group 'wte' mixes parameters of different type or init}}
tfm.param @b : tensor<4x8xf32> init normal(0.01) tie "wte"

// -----

// Every member is compared with the earlier ones, so a third member that
// disagrees is caught even when the first two agree.
tfm.param @a : tensor<4xf32> init ones tie "g"
tfm.param @b : tensor<4xf32> init ones tie "g"
tfm.param @other : tensor<8xf32> init ones tie "h"
// expected-error @+1 {{tie group 'g' mixes parameters of different type or init: @a is 'tensor<4xf32>'}}
tfm.param @c : tensor<4xf32> init zeros tie "g"

//===----------------------------------------------------------------------===//
// tfm.get_param
//===----------------------------------------------------------------------===//

// -----

func.func @missing() {
  // expected-error @+1 {{'missing' does not name a tfm.param}}
  %0 = tfm.get_param @missing : tensor<4xf32>
  return
}

// -----

func.func @not_a_param() {
  // expected-error @+1 {{'not_a_param' does not name a tfm.param}}
  %0 = tfm.get_param @not_a_param : tensor<4xf32>
  return
}

// -----

tfm.param @p : tensor<4x8xf32> init zeros
func.func @wrong_shape() {
  // expected-error @+1 {{result type 'tensor<8x4xf32>' is not a shard of the type of @p, 'tensor<4x8xf32>'}}
  %0 = tfm.get_param @p : tensor<8x4xf32>
  return
}

// -----

tfm.param @p : tensor<4x8xf32> init zeros
func.func @wrong_element() {
  // expected-error @+1 {{result type 'tensor<4x8xf16>' is not a shard of the type of @p, 'tensor<4x8xf32>'}}
  %0 = tfm.get_param @p : tensor<4x8xf16>
  return
}

// -----

// Without a layout the result must be the whole parameter, even if its dims
// divide the parameter's.
tfm.param @p : tensor<4x8xf32> init zeros
func.func @shard_without_layout() {
  // expected-error @+1 {{result type 'tensor<4x4xf32>' is not a shard of the type of @p, 'tensor<4x8xf32>'}}
  %0 = tfm.get_param @p : tensor<4x4xf32>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_not_dividing() {
  // expected-error @+1 {{result type 'tensor<16x10xf32, #dist.layout<@mesh, tp = S(1)>>' is not a shard of the type of @p, 'tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>'}}
  %0 = tfm.get_param @p : tensor<16x10xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_larger() {
  // expected-error @+1 {{is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<16x96xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_zero_dim() {
  // expected-error @+1 {{is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<16x0xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_rank() {
  // expected-error @+1 {{result type 'tensor<768xf32, #dist.layout<@mesh, tp = S(1)>>' is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<768xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_element() {
  // expected-error @+1 {{result type 'tensor<16x12xbf16, #dist.layout<@mesh, tp = S(1)>>' is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<16x12xbf16, #dist.layout<@mesh, tp = S(1)>>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_other_layout() {
  // expected-error @+1 {{result type 'tensor<4x48xf32, #dist.layout<@mesh, tp = S(0)>>' is not a shard of the type of @p, 'tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>>'}}
  %0 = tfm.get_param @p : tensor<4x48xf32, #dist.layout<@mesh, tp = S(0)>>
  return
}

// -----

tfm.param @p : tensor<16x48xf32, #dist.layout<@mesh, tp = S(1)>> init zeros
func.func @shard_layout_dropped() {
  // expected-error @+1 {{result type 'tensor<16x12xf32>' is not a shard of the type of @p}}
  %0 = tfm.get_param @p : tensor<16x12xf32>
  return
}

// -----

tfm.param @p : tensor<16x48xf32> init zeros
func.func @shard_layout_added() {
  // expected-error @+1 {{result type 'tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>' is not a shard of the type of @p, 'tensor<16x48xf32>'}}
  %0 = tfm.get_param @p : tensor<16x12xf32, #dist.layout<@mesh, tp = S(1)>>
  return
}

//===----------------------------------------------------------------------===//
// tfm.micro_batch
//===----------------------------------------------------------------------===//

// -----

func.func @micro_batch_rank1(%ids: tensor<8xi64>) {
  // expected-error @+1 {{input must have rank >= 2 [micro-batches, ...], got [8]}}
  %0 = tfm.micro_batch %ids[0] : tensor<8xi64> -> tensor<i64>
  return
}

// -----

func.func @micro_batch_index(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{index 4 is outside the 4 micro-batches of the input}}
  %0 = tfm.micro_batch %ids[4] : tensor<4x8x2xi64> -> tensor<8x2xi64>
  return
}

// -----

func.func @micro_batch_negative(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{index -1 is outside the 4 micro-batches of the input}}
  %0 = tfm.micro_batch %ids[-1] : tensor<4x8x2xi64> -> tensor<8x2xi64>
  return
}

//===----------------------------------------------------------------------===//
// tfm.micro_batch_loop
//===----------------------------------------------------------------------===//

// -----

func.func @micro_batch_loop_counts(%ids: tensor<4x8x2xi64>, %labels: tensor<3x8x2xi64>) {
  // expected-error @+1 {{input #1 has 3 micro-batches (dimension 0), not 4 like input #0 (and at least 1)}}
  tfm.micro_batch_loop(%ids, %labels) : (tensor<4x8x2xi64>, tensor<3x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>, %l: tensor<8x2xi64>):
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_arg(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{body argument #0 must be 'tensor<8x2xi64>' (micro-batch i of input #0), got 'tensor<4x8x2xi64>'}}
  tfm.micro_batch_loop(%ids) : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<4x8x2xi64>):
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_yield(%ids: tensor<4x8x2xi64>) -> tensor<f32> {
  // expected-error @+1 {{yields 'tensor<2xf32>' but its results are 'tensor<f32>'}}
  %s = tfm.micro_batch_loop(%ids) : (tensor<4x8x2xi64>) -> tensor<f32> {
  ^bb0(%i: tensor<8x2xi64>):
    %x = tfm.fill 1.000000e+00 : tensor<2xf32>
    tfm.yield %x : tensor<2xf32>
  }
  return %s : tensor<f32>
}

// -----

func.func @micro_batch_loop_count(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{count 5 is outside [1, 4] (the micro-batches of its inputs)}}
  tfm.micro_batch_loop(%ids) {count = 5 : i64} : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>):
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_count_zero(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{count 0 is outside [1, 4] (the micro-batches of its inputs)}}
  tfm.micro_batch_loop(%ids) {count = 0 : i64} : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>):
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_lag(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{lag 5 is outside [0, 4] (the micro-batches of its inputs)}}
  tfm.micro_batch_loop(%ids) {lag = 5 : i64} : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>):
    %s = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_lag_count(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{has both a lag and a count: a pipeline stage's loop runs every micro-batch}}
  tfm.micro_batch_loop(%ids) {count = 3 : i64, lag = 1 : i64} : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>):
    %s = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_lag_no_seed(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{has a lag but 0 ops of its body marked tfm.backward_begins; exactly one begins the backward part}}
  tfm.micro_batch_loop(%ids) {lag = 1 : i64} : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>):
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_lag_two_seeds(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{has a lag but 2 ops of its body marked tfm.backward_begins; exactly one begins the backward part}}
  tfm.micro_batch_loop(%ids) {lag = 1 : i64} : (tensor<4x8x2xi64>) -> () {
  ^bb0(%i: tensor<8x2xi64>):
    %s = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    %t = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_loop_rank(%ids: tensor<8xi64>) {
  // expected-error @+1 {{input #0 must have rank >= 2 [micro-batches, ...], got [8]}}
  tfm.micro_batch_loop(%ids) : (tensor<8xi64>) -> () {
  ^bb0(%i: tensor<i64>):
    tfm.yield
  }
  return
}

// -----

func.func @micro_batch_shape(%ids: tensor<4x8x2xi64>) {
  // expected-error @+1 {{result must be [8, 2] 'i64' (the input without dimension 0), got [8, 1] 'i64'}}
  %0 = tfm.micro_batch %ids[0] : tensor<4x8x2xi64> -> tensor<8x1xi64>
  return
}

//===----------------------------------------------------------------------===//
// tfm.position_ids
//===----------------------------------------------------------------------===//

// -----

func.func @rank1() {
  // expected-error @+1 {{result must be a rank-2 [s, b] tensor, got 'tensor<8xi64>'}}
  %0 = tfm.position_ids : tensor<8xi64>
  return
}

// -----

func.func @rank3() {
  // expected-error @+1 {{result must be a rank-2 [s, b] tensor, got 'tensor<8x2x1xi32>'}}
  %0 = tfm.position_ids : tensor<8x2x1xi32>
  return
}

// -----

func.func @float_ids() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.position_ids : tensor<8x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.embedding
//===----------------------------------------------------------------------===//

// -----

func.func @table_rank(%ids: tensor<8x2xi64>, %t: tensor<64xf32>) {
  // expected-error @+1 {{table must have rank 2 [vocab, hidden], got [64]}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64xf32>) -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_hidden(%ids: tensor<8x2xi64>, %t: tensor<64x16xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 16] (ids shape + hidden), got [8, 2, 64]}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_ids_shape(%ids: tensor<8x2xi64>, %t: tensor<64x16xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 16] (ids shape + hidden), got [2, 8, 16]}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @result_element(%ids: tensor<8x2xi64>, %t: tensor<64x16xf32>) {
  // expected-error @+1 {{result element type 'bf16' differs from the table's 'f32'}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xf32>) -> tensor<8x2x16xbf16>
  return
}

// -----

func.func @float_ids(%ids: tensor<8x2xf32>, %t: tensor<64x16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xf32>, tensor<64x16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @integer_table(%ids: tensor<8x2xi64>, %t: tensor<64x16xi32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<64x16xi32>'}}
  %0 = tfm.embedding %ids, %t : (tensor<8x2xi64>, tensor<64x16xi32>) -> tensor<8x2x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.layer_norm
//===----------------------------------------------------------------------===//

// -----

func.func @eps_zero(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got 0.000000e+00}}
  %0 = tfm.layer_norm %x, %w eps 0.0 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @eps_negative(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got -1.000000e-05}}
  %0 = tfm.layer_norm %x, %w, %b eps -1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @weight_size(%x: tensor<8x2x16xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got [8]}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<8xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<8x2x16xf32>, %w: tensor<1x16xf32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got [1, 16]}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<1x16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @bias_size(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias must have shape [16] (the input's last dimension), got [2]}}
  %0 = tfm.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<2xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @weight_element(%x: tensor<8x2x16xf32>, %w: tensor<16xbf16>) {
  // expected-error @+1 {{weight element type 'bf16' differs from the input's 'f32'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xbf16>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @bias_element(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf16>) {
  // expected-error @+1 {{bias element type 'f16' differs from the input's 'f32'}}
  %0 = tfm.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>, tensor<16xf16>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @result_shape(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{result type 'tensor<2x8x16xf32>' differs from the input type 'tensor<8x2x16xf32>'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @result_element(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{result type 'tensor<8x2x16xf16>' differs from the input type 'tensor<8x2x16xf32>'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf16>
  return
}

// -----

func.func @integer_input(%x: tensor<8x2x16xi32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x2x16xi32>'}}
  %0 = tfm.layer_norm %x, %w eps 1.0e-05 : (tensor<8x2x16xi32>, tensor<16xf32>) -> tensor<8x2x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.rms_norm
//===----------------------------------------------------------------------===//

// -----

func.func @eps_zero(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got 0.000000e+00}}
  %0 = tfm.rms_norm %x, %w eps 0.0 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @eps_negative(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{eps must be > 0, got -1.000000e+00}}
  %0 = tfm.rms_norm %x, %w eps -1.0 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @weight_size(%x: tensor<8x2x16xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got [32]}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<32xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<8x2x16xf32>, %w: tensor<f32>) {
  // expected-error @+1 {{weight must have shape [16] (the input's last dimension), got []}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<f32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @weight_element(%x: tensor<8x2x16xbf16>, %w: tensor<16xf32>) {
  // expected-error @+1 {{weight element type 'f32' differs from the input's 'bf16'}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xbf16>, tensor<16xf32>) -> tensor<8x2x16xbf16>
  return
}

// -----

func.func @result_type(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{result type 'tensor<8x2x16xbf16>' differs from the input type 'tensor<8x2x16xf32>'}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xbf16>
  return
}

// -----

func.func @result_shape(%x: tensor<8x2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{result type 'tensor<8x16xf32>' differs from the input type 'tensor<8x2x16xf32>'}}
  %0 = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.dropout
//===----------------------------------------------------------------------===//

// -----

func.func @rate_one(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{rate must be in [0, 1), got 1.000000e+00}}
  %0 = tfm.dropout %x rate 1.0 stream 0 : tensor<8x2x16xf32>
  return
}

// -----

func.func @rate_negative(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{rate must be in [0, 1), got -1.000000e-01}}
  %0 = tfm.dropout %x rate -0.1 stream 0 : tensor<8x2x16xf32>
  return
}

// -----

func.func @stream_negative(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{attribute 'stream' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tfm.dropout %x rate 0.1 stream -1 : tensor<8x2x16xf32>
  return
}

// -----

func.func @result_type(%x: tensor<8x2x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.dropout"(%x) {rate = 0.1 : f64, stream = 0 : i64} : (tensor<8x2x16xf32>) -> tensor<8x2x16xf16>
  return
}

// -----

func.func @integer_input(%x: tensor<8x2x16xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x2x16xi64>'}}
  %0 = tfm.dropout %x rate 0.1 stream 0 : tensor<8x2x16xi64>
  return
}

//===----------------------------------------------------------------------===//
// tfm.linear
//===----------------------------------------------------------------------===//

// -----

func.func @input_rank(%x: tensor<f32>, %w: tensor<4x1xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = tfm.linear %x, %w : (tensor<f32>, tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @weight_rank1(%x: tensor<8x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{weight must have rank 2, got [16]}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @weight_rank3(%x: tensor<8x16xf32>, %w: tensor<2x4x16xf32>) {
  // expected-error @+1 {{weight must have rank 2, got [2, 4, 16]}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<2x4x16xf32>) -> tensor<8x4xf32>
  return
}

// -----

// An [in, out] weight read with the default out_in layout.
func.func @in_features_out_in(%x: tensor<8x16xf32>, %w: tensor<16x48xf32>) {
  // expected-error @+1 {{weight [16, 48] (out_in) has 48 input features but the input's last dimension is 16}}
  %0 = tfm.linear %x, %w : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x16xf32>
  return
}

// -----

// An [out, in] weight read as in_out.
func.func @in_features_in_out(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{weight [48, 16] (in_out) has 48 input features but the input's last dimension is 16}}
  %0 = tfm.linear %x, %w weight_layout in_out : (tensor<8x16xf32>, tensor<48x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @bias_size_out_in(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias must have shape [48], got [16]}}
  %0 = tfm.linear %x, %w, %b : (tensor<8x16xf32>, tensor<48x16xf32>, tensor<16xf32>) -> tensor<8x48xf32>
  return
}

// -----

func.func @bias_size_in_out(%x: tensor<8x16xf32>, %w: tensor<16x48xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias must have shape [48], got [16]}}
  %0 = tfm.linear %x, %w, %b weight_layout in_out : (tensor<8x16xf32>, tensor<16x48xf32>, tensor<16xf32>) -> tensor<8x48xf32>
  return
}

// -----

func.func @bias_rank(%x: tensor<8x16xf32>, %w: tensor<48x16xf32>, %b: tensor<1x48xf32>) {
  // expected-error @+1 {{bias must have shape [48], got [1, 48]}}
  %0 = tfm.linear %x, %w, %b : (tensor<8x16xf32>, tensor<48x16xf32>, tensor<1x48xf32>) -> tensor<8x48xf32>
  return
}

// -----

func.func @result_out(%x: tensor<8x2x16xf32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 48], got [8, 2, 16]}}
  %0 = tfm.linear %x, %w : (tensor<8x2x16xf32>, tensor<48x16xf32>) -> tensor<8x2x16xf32>
  return
}

// -----

func.func @result_leading(%x: tensor<8x2x16xf32>, %w: tensor<16x48xf32>) {
  // expected-error @+1 {{result shape must be [8, 2, 48], got [16, 48]}}
  %0 = tfm.linear %x, %w weight_layout in_out : (tensor<8x2x16xf32>, tensor<16x48xf32>) -> tensor<16x48xf32>
  return
}

// -----

func.func @integer_input(%x: tensor<8x16xi32>, %w: tensor<48x16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.linear %x, %w : (tensor<8x16xi32>, tensor<48x16xf32>) -> tensor<8x48xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.qkv_split
//===----------------------------------------------------------------------===//

// -----

func.func @zero_heads(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 0, 4, 4}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 0 kv_heads 4 head_dim 4 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @zero_kv_heads(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 4, 0, 4}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 0 head_dim 4 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @zero_head_dim(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 4, 4, 0}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 4 head_dim 0 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @heads_not_multiple(%x: tensor<8x56xf32>) {
  // expected-error @+1 {{heads (6) must be a multiple of kv_heads (4)}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 6 kv_heads 4 head_dim 4 : tensor<8x56xf32> -> tensor<8x24xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @heads_packing_gqa(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{'heads' packing needs heads == kv_heads, got 4 and 2}}
  %q, %k, %v = tfm.qkv_split %x packing heads heads 4 kv_heads 2 head_dim 4 : tensor<8x32xf32> -> tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @input_width(%x: tensor<8x2x32xf32>) {
  // expected-error @+1 {{input's last dimension must be (heads + 2 * kv_heads) * head_dim = 48, got [8, 2, 32]}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x2x32xf32> -> tensor<8x2x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @input_width_gqa(%x: tensor<8x48xf32>) {
  // expected-error @+1 {{input's last dimension must be (heads + 2 * kv_heads) * head_dim = 32, got [8, 48]}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 2 head_dim 4 : tensor<8x48xf32> -> tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @input_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{input's last dimension must be (heads + 2 * kv_heads) * head_dim = 3, got []}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 1 kv_heads 1 head_dim 1 : tensor<f32> -> tensor<f32>, tensor<f32>, tensor<f32>
  return
}

// -----

func.func @q_width(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{result 0 must have shape [8, 16] and element type 'f32', got 'tensor<8x8xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 2 head_dim 4 : tensor<8x32xf32> -> tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @k_width(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{result 1 must have shape [8, 8] and element type 'f32', got 'tensor<8x16xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 2 head_dim 4 : tensor<8x32xf32> -> tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @v_width(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{result 2 must have shape [8, 8] and element type 'f32', got 'tensor<8x4xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 2 head_dim 4 : tensor<8x32xf32> -> tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @leading_dims(%x: tensor<8x2x48xf32>) {
  // expected-error @+1 {{result 0 must have shape [8, 2, 16] and element type 'f32', got 'tensor<16x16xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing heads heads 4 kv_heads 4 head_dim 4 : tensor<8x2x48xf32> -> tensor<16x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32>
  return
}

// -----

func.func @result_element(%x: tensor<8x48xbf16>) {
  // expected-error @+1 {{result 1 must have shape [8, 16] and element type 'bf16', got 'tensor<8x16xf32>'}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4 kv_heads 4 head_dim 4 : tensor<8x48xbf16> -> tensor<8x16xbf16>, tensor<8x16xf32>, tensor<8x16xbf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_lse_type(%q: tensor<8x2x32xbf16>, %kv: tensor<8x2x32xbf16>) {
  // expected-error @+1 {{lse must be 'tensor<8x2x4xf32>' ([s, b, heads] f32 with q's encoding), got 'tensor<8x2x4xbf16>'}}
  %0, %1 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xbf16>, tensor<8x2x32xbf16>, tensor<8x2x32xbf16> -> tensor<8x2x32xbf16>, tensor<8x2x4xbf16>
  return
}

// -----

func.func @zero_heads(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 0, 4, 8}}
  %0 = tfm.attention %q, %kv, %kv heads 0 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @zero_kv_heads(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 4, 0, 8}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 0 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @negative_head_dim(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{heads, kv_heads and head_dim must be >= 1, got 4, 4, -8}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim -8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @heads_not_multiple(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x24xf32>) {
  // expected-error @+1 {{heads (4) must be a multiple of kv_heads (3)}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 3 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x24xf32>, tensor<8x2x24xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @q_rank(%q: tensor<16x32xf32>, %kv: tensor<16x32xf32>) {
  // expected-error @+1 {{q must have rank 3 [s, b, heads * head_dim], got [16, 32]}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @q_width(%q: tensor<8x2x16xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{q must have shape [8, 2, 32], got [8, 2, 16]}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x16xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x16xf32>
  return
}

// -----

// GQA: k must be kv_heads * head_dim = 16 wide, not heads * head_dim.
func.func @k_width(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xf32>, %v: tensor<8x2x16xf32>) {
  // expected-error @+1 {{k must have shape [8, 2, 16], got [8, 2, 32]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 2 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
  return
}

// -----

// MQA: v must be one head wide.
func.func @v_width(%q: tensor<8x2x32xf32>, %k: tensor<8x2x8xf32>, %v: tensor<8x2x16xf32>) {
  // expected-error @+1 {{v must have shape [8, 2, 8], got [8, 2, 16]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 1 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x8xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @k_longer_one_device(%q: tensor<8x2x32xf32>, %k: tensor<16x2x32xf32>, %v: tensor<16x2x32xf32>) {
  // Without layouts q and k are the same sequence: a longer k is an error.
  // expected-error @+1 {{k's sequence (16) must be q's (8)}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @k_leading(%q: tensor<8x2x32xf32>, %k: tensor<4x2x32xf32>, %v: tensor<8x2x32xf32>) {
  // expected-error @+1 {{k's sequence (4) must be q's (8)}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<4x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @v_rank(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xf32>, %v: tensor<16x32xf32>) {
  // expected-error @+1 {{v must have shape [8, 2, 32], got [16, 32]}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<16x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @k_element(%q: tensor<8x2x32xf32>, %k: tensor<8x2x32xbf16>, %v: tensor<8x2x32xf32>) {
  // expected-error @+1 {{k element type 'bf16' differs from q's 'f32'}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xbf16>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @v_element(%q: tensor<8x2x32xf16>, %k: tensor<8x2x32xf16>, %v: tensor<8x2x32xf32>) {
  // expected-error @+1 {{v element type 'f32' differs from q's 'f16'}}
  %0 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf16>, tensor<8x2x32xf16>, tensor<8x2x32xf32> -> tensor<8x2x32xf16>
  return
}

// -----

func.func @result_shape(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 32], got [8, 2, 8]}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 1 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32> -> tensor<8x2x8xf32>
  return
}

// -----

func.func @result_element(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{result element type 'bf16' differs from q's 'f32'}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xbf16>
  return
}

// -----

func.func @positions_shape(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>, %pos: tensor<2x8xi64>) {
  // expected-error @+1 {{positions must have shape [8, 2], got [2, 8]}}
  %0 = tfm.attention %q, %kv, %kv positions %pos heads 4 kv_heads 4 head_dim 8 {rotary_dim = 8} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<2x8xi64> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @positions_rank(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>, %pos: tensor<8xi32>) {
  // expected-error @+1 {{positions must have shape [8, 2], got [8]}}
  %0 = tfm.attention %q, %kv, %kv positions %pos heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8xi32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @positions_float(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>, %pos: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.attention %q, %kv, %kv positions %pos heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @rotary_odd(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_dim must be even and in [0, 8], got 3}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = 3} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @rotary_too_wide(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_dim must be even and in [0, 8], got 10}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = 10} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @rotary_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_dim must be even and in [0, 8], got -2}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = -2} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @rotary_theta_zero(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_theta must be > 0, got 0.000000e+00}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = 8, rotary_theta = 0.0} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @rotary_theta_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{rotary_theta must be > 0, got -1.000000e+04}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {rotary_dim = 2, rotary_theta = -10000.0} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @dropout_rate_one(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dropout_rate must be in [0, 1), got 1.000000e+00}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {dropout_rate = 1.0} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @dropout_rate_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dropout_rate must be in [0, 1), got -5.000000e-01}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {dropout_rate = -0.5} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @dropout_stream_negative(%q: tensor<8x2x32xf32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{dropout_stream must be >= 0, got -1}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 {dropout_rate = 0.1, dropout_stream = -1} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @integer_q(%q: tensor<8x2x32xi32>, %kv: tensor<8x2x32xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x2x32xi32>'}}
  %0 = tfm.attention %q, %kv, %kv heads 4 kv_heads 4 head_dim 8 : tensor<8x2x32xi32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise: tfm.gelu, tfm.silu, tfm.mul, tfm.add
//===----------------------------------------------------------------------===//

// -----

func.func @gelu_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.gelu"(%x) {approximate = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  return
}

// -----

func.func @gelu_integer(%x: tensor<8x16xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.gelu %x approximate none : tensor<8x16xi32>
  return
}

// -----

func.func @gelu_approximation(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = tfm.gelu %x approximate sigmoid : tensor<8x16xf32>
  return
}

// -----

func.func @silu_result(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.silu"(%x) : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @silu_integer(%x: tensor<8x16xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi64>'}}
  %0 = tfm.silu %x : tensor<8x16xi64>
  return
}

// -----

func.func @mul_broadcast(%a: tensor<8x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.mul"(%a, %b) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @mul_result(%a: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.mul"(%a, %a) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf16>
  return
}

// -----

func.func @add_mixed(%a: tensor<8x16xf32>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.add"(%a, %b) : (tensor<8x16xf32>, tensor<8x16xbf16>) -> tensor<8x16xf32>
  return
}

// -----

func.func @add_result(%a: tensor<8x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tfm.add"(%a, %a) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @add_integer(%a: tensor<8x16xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.add %a, %a : tensor<8x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.bias_add
//===----------------------------------------------------------------------===//

// -----

func.func @bias_size(%x: tensor<8x2x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias must have shape [16] (the input's last dimension), got [8]}}
  %0 = tfm.bias_add %x, %b : tensor<8x2x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @bias_rank(%x: tensor<8x2x16xf32>, %b: tensor<2x16xf32>) {
  // expected-error @+1 {{bias must have shape [16] (the input's last dimension), got [2, 16]}}
  %0 = tfm.bias_add %x, %b : tensor<8x2x16xf32>, tensor<2x16xf32>
  return
}

// -----

func.func @bias_element(%x: tensor<8x2x16xbf16>, %b: tensor<16xf32>) {
  // expected-error @+1 {{bias element type 'f32' differs from the input's 'bf16'}}
  %0 = tfm.bias_add %x, %b : tensor<8x2x16xbf16>, tensor<16xf32>
  return
}

// -----

func.func @result_type(%x: tensor<8x2x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "tfm.bias_add"(%x, %b) : (tensor<8x2x16xf32>, tensor<16xf32>) -> tensor<8x2x16xf16>
  return
}

// -----

func.func @integer_input(%x: tensor<8x16xi32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<8x16xi32>'}}
  %0 = tfm.bias_add %x, %b : tensor<8x16xi32>, tensor<16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.repeat_heads
//===----------------------------------------------------------------------===//

// -----

func.func @zero_heads(%k: tensor<8x8xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1, got 0, 4, 2}}
  %0 = tfm.repeat_heads %k heads 0 head_dim 4 factor 2 : tensor<8x8xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @zero_head_dim(%k: tensor<8x8xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1, got 2, 0, 2}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 0 factor 2 : tensor<8x8xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @zero_factor(%k: tensor<8x8xf32>) {
  // expected-error @+1 {{heads, head_dim and factor must be >= 1, got 2, 4, 0}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 0 : tensor<8x8xf32> -> tensor<8x0xf32>
  return
}

// -----

func.func @input_width(%k: tensor<8x2x12xf32>) {
  // expected-error @+1 {{input's last dimension must be heads * head_dim = 8, got [8, 2, 12]}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x12xf32> -> tensor<8x2x16xf32>
  return
}

// -----

func.func @input_rank0(%k: tensor<f32>) {
  // expected-error @+1 {{input's last dimension must be heads * head_dim = 1, got []}}
  %0 = tfm.repeat_heads %k heads 1 head_dim 1 factor 2 : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @result_width(%k: tensor<8x2x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 24] and element type 'f32', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 3 : tensor<8x2x8xf32> -> tensor<8x2x16xf32>
  return
}

// -----

func.func @result_leading(%k: tensor<8x2x8xf32>) {
  // expected-error @+1 {{result must have shape [8, 2, 16] and element type 'f32', got 'tensor<16x16xf32>'}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x8xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @result_element(%k: tensor<8x2x8xf16>) {
  // expected-error @+1 {{result must have shape [8, 2, 16] and element type 'f16', got 'tensor<8x2x16xf32>'}}
  %0 = tfm.repeat_heads %k heads 2 head_dim 4 factor 2 : tensor<8x2x8xf16> -> tensor<8x2x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.logits_max
//===----------------------------------------------------------------------===//

// -----

func.func @result_shape(%l: tensor<8x2x64xf32>) {
  // expected-error @+1 {{result must have shape [8, 2] (the logits' without the vocabulary), got [8, 2, 1]}}
  %0 = tfm.logits_max %l : tensor<8x2x64xf32> -> tensor<8x2x1xf32>
  return
}

// -----

func.func @result_not_f32(%l: tensor<8x2x64xbf16>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.logits_max %l : tensor<8x2x64xbf16> -> tensor<8x2xbf16>
  return
}

// -----

func.func @logits_rank0(%l: tensor<f32>) {
  // expected-error @+1 {{logits must have rank >= 1, got 'tensor<f32>'}}
  %0 = tfm.logits_max %l : tensor<f32> -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.logits_sumexp
//===----------------------------------------------------------------------===//

// -----

func.func @max_shape(%l: tensor<8x2x64xf32>, %m: tensor<8xf32>) {
  // expected-error @+1 {{max must have shape [8, 2] (the logits' without the vocabulary), got [8]}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf32>, tensor<8xf32> -> tensor<8x2xf32>
  return
}

// -----

func.func @result_shape(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>) {
  // expected-error @+1 {{result must have shape [8, 2] (the logits' without the vocabulary), got [2, 8]}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @max_not_f32(%l: tensor<8x2x64xf16>, %m: tensor<8x2xf16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xf16>'}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf16>, tensor<8x2xf16> -> tensor<8x2xf32>
  return
}

// -----

func.func @result_not_f32(%l: tensor<8x2x64xf32>, %m: tensor<8x2xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.logits_sumexp %l, %m : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<8x2xbf16>
  return
}

// -----

func.func @logits_rank0(%l: tensor<f32>, %m: tensor<f32>) {
  // expected-error @+1 {{logits must have rank >= 1, got 'tensor<f32>'}}
  %0 = tfm.logits_sumexp %l, %m : tensor<f32>, tensor<f32> -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.label_logit
//===----------------------------------------------------------------------===//

// -----

func.func @labels_shape(%l: tensor<8x2x64xf32>, %lab: tensor<16xi64>) {
  // expected-error @+1 {{labels must have shape [8, 2] (the logits' without the vocabulary), got [16]}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xf32>, tensor<16xi64> -> tensor<8x2xf32>
  return
}

// -----

func.func @result_shape(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result must have shape [8, 2] (the logits' without the vocabulary), got [8, 2, 64]}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xf32>, tensor<8x2xi64> -> tensor<8x2x64xf32>
  return
}

// -----

func.func @result_not_f32(%l: tensor<8x2x64xbf16>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xbf16>, tensor<8x2xi64> -> tensor<8x2xbf16>
  return
}

// -----

func.func @labels_float(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<8x2x64xf32>, tensor<8x2xf32> -> tensor<8x2xf32>
  return
}

// -----

func.func @logits_rank0(%l: tensor<f32>, %lab: tensor<i64>) {
  // expected-error @+1 {{logits must have rank >= 1, got 'tensor<f32>'}}
  %0 = tfm.label_logit %l, %lab ignore_index -100 : tensor<f32>, tensor<i64> -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy_from_stats
//===----------------------------------------------------------------------===//

// -----

func.func @max_shape(%m: tensor<8xf32>, %s: tensor<8x2xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{max must have the labels' shape [8, 2], got 'tensor<8xf32>'}}
  %0 = tfm.cross_entropy_from_stats %m, %s, %s, %lab ignore_index -100 : tensor<8xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

// -----

func.func @sumexp_shape(%s: tensor<8x2xf32>, %se: tensor<2x8xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{sumexp must have the labels' shape [8, 2], got 'tensor<2x8xf32>'}}
  %0 = tfm.cross_entropy_from_stats %s, %se, %s, %lab ignore_index -100 : tensor<8x2xf32>, tensor<2x8xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

// -----

func.func @label_logit_shape(%s: tensor<8x2xf32>, %z: tensor<8x2x1xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{label_logit must have the labels' shape [8, 2], got 'tensor<8x2x1xf32>'}}
  %0 = tfm.cross_entropy_from_stats %s, %s, %z, %lab ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x1xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

// -----

func.func @stats_not_f32(%s: tensor<8x2xf32>, %h: tensor<8x2xbf16>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values, but got 'tensor<8x2xbf16>'}}
  %0 = tfm.cross_entropy_from_stats %s, %h, %s, %lab ignore_index -100 : tensor<8x2xf32>, tensor<8x2xbf16>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
  return
}

// -----

func.func @loss_not_scalar(%s: tensor<8x2xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.cross_entropy_from_stats %s, %s, %s, %lab ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<8x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cross_entropy
//===----------------------------------------------------------------------===//

// -----

func.func @labels_shape(%l: tensor<8x2x64xf32>, %lab: tensor<8x2x64xi64>) {
  // expected-error @+1 {{labels must have shape [8, 2] (the logits' without the vocabulary), got [8, 2, 64]}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2x64xi64>) -> tensor<f32>
  return
}

// -----

func.func @labels_transposed(%l: tensor<8x2x64xf32>, %lab: tensor<2x8xi64>) {
  // expected-error @+1 {{labels must have shape [8, 2] (the logits' without the vocabulary), got [2, 8]}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<2x8xi64>) -> tensor<f32>
  return
}

// -----

func.func @logits_rank0(%l: tensor<f32>, %lab: tensor<i64>) {
  // expected-error @+1 {{logits must have rank >= 1, got 'tensor<f32>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @labels_float(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xf32>) -> tensor<f32>
  return
}

// -----

func.func @loss_not_scalar(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>) -> tensor<1xf32>
  return
}

// -----

func.func @loss_not_f32(%l: tensor<8x2x64xbf16>, %lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<bf16>'}}
  %0 = tfm.cross_entropy %l, %lab ignore_index -100 : (tensor<8x2x64xbf16>, tensor<8x2xi64>) -> tensor<bf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tfm.label_count, the loss's count
//===----------------------------------------------------------------------===//

func.func @label_count_not_scalar(%lab: tensor<8x2xi64>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = tfm.label_count %lab ignore_index -100 : tensor<8x2xi64> -> tensor<1xf32>
  return
}

// -----

func.func @label_count_float_labels(%lab: tensor<8x2xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x2xf32>'}}
  %0 = tfm.label_count %lab ignore_index -100 : tensor<8x2xf32> -> tensor<f32>
  return
}

// -----

func.func @count_not_scalar(%l: tensor<8x2x64xf32>, %lab: tensor<8x2xi64>, %n: tensor<2xf32>) {
  // expected-error @+1 {{operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<2xf32>'}}
  %0 = tfm.cross_entropy %l, %lab count %n ignore_index -100 : (tensor<8x2x64xf32>, tensor<8x2xi64>, tensor<2xf32>) -> tensor<f32>
  return
}

// -----

func.func @document_causal_without_positions(%q: tensor<8x2x32xf32>) {
  // expected-error @+1 {{document_causal needs causal and positions (the documents' position ids)}}
  %0 = tfm.attention %q, %q, %q heads 4 kv_heads 4 head_dim 8 {causal, document_causal} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @document_causal_not_causal(%q: tensor<8x2x32xf32>, %p: tensor<8x2xi64>) {
  // expected-error @+1 {{document_causal needs causal and positions (the documents' position ids)}}
  %0 = tfm.attention %q, %q, %q positions %p heads 4 kv_heads 4 head_dim 8 {document_causal} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2xi64> -> tensor<8x2x32xf32>
  return
}

// -----

func.func @grad_document_causal_without_positions(%q: tensor<8x2x32xf32>) {
  // expected-error @+1 {{document_causal needs causal and positions (the documents' position ids)}}
  %a, %b, %c = tfm.attention_grad %q, %q, %q, %q heads 4 kv_heads 4 head_dim 8 {causal, document_causal} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
  return
}

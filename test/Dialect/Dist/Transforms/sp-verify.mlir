// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics | FileCheck %s

// A correct TP+SP block verifies and is left unchanged.
// CHECK-LABEL: func.func @sp_block
dist.mesh @mesh ["tp" = 2]
tfm.param @ln.weight : tensor<8xf32> init ones
tfm.param @fc.weight : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
func.func @sp_block(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  %n = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %g = dist.all_gather %n on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  %w1 = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %h = tfm.linear %g, %w1 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %a = tfm.silu %h : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w2 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.reduce_scatter %p on @mesh["tp"] dim 0 : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %y = tfm.add %x, %r : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  %out = dist.all_gather %y on @mesh["tp"] dim 0 : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<4x1x8xf32>
  return %out : tensor<4x1x8xf32>
}

// -----

// The GPT-NeoX #1257 shape of bug: a row-parallel output normalised before
// it is reduced.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @norm_of_partial(%a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w2 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  // expected-error @+1 {{'tfm.rms_norm' op operand #0 (from tfm.linear) is P on mesh axis 'tp': a norm of a partial value is not the norm of the sum; all-reduce or reduce-scatter it first}}
  %n = tfm.rms_norm %p, %w eps 1.0e-06 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %n : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}

// -----

// Gathering a sequence shard along the wrong dimension.
dist.mesh @mesh ["tp" = 2]
func.func @gather_wrong_dim(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'dist.all_gather' op operand must be S(1) on axis 'tp', its layout is #dist.layout<@mesh, tp = S(0)>}}
  %g = dist.all_gather %x on @mesh["tp"] dim 1 : tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<2x4x8xf32>
  return %g : tensor<2x4x8xf32>
}

// -----

// A column-parallel GEMM fed a sequence shard (the all_gather is missing).
dist.mesh @mesh ["tp" = 2]
tfm.param @fc.weight : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @missing_gather(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(2)>> {
  %w1 = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  // expected-error @+1 {{operand #0 is S(0) on mesh axis 'tp': a column-parallel GEMM needs its whole input; all-gather it first}}
  %h = tfm.linear %x, %w1 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  return %h : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
}

// -----

// A row-parallel GEMM that adds its bias to the partial products.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @proj.bias : tensor<8xf32> init zeros
func.func @bias_on_partial(%a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %b = tfm.get_param @proj.bias : tensor<8xf32>
  // expected-error @+1 {{operand #2 (from tfm.get_param) is R on mesh axis 'tp': a bias added to a partial product would be counted once per rank; add it after the reduction}}
  %p = tfm.linear %a, %w2, %b : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %p : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}

// -----

// A result type that disagrees with what the operands make it.
dist.mesh @mesh ["tp" = 2]
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @wrong_result_layout(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32> {
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  // expected-error @+1 {{'tfm.rms_norm' op result #0 is R on mesh axis 'tp' but its operands make it S(0)}}
  %y = tfm.rms_norm %x, %w eps 1.0e-06 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> tensor<2x1x8xf32>
  return %y : tensor<2x1x8xf32>
}

// -----

// Elementwise ops cannot even be written with mismatched layouts: their
// operand and result types must be equal.
dist.mesh @mesh ["tp" = 2]
func.func @add_mismatch(%a: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, %b: tensor<2x1x8xf32>) -> tensor<2x1x8xf32> {
  // expected-error @+2 {{'tfm.add' op failed to infer returned types}}
  // expected-error @+1 {{'tfm.add' op inferred type(s) 'tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>' are incompatible with return type(s) of operation 'tensor<2x1x8xf32>'}}
  %y = "tfm.add"(%a, %b) : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  return %y : tensor<2x1x8xf32>
}

// -----

// Attention over a sequence shard needs context parallelism.
dist.mesh @mesh ["tp" = 2]
func.func @attention_on_sequence_shard(%q: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  // expected-error @+1 {{operand #0 is S(0) on mesh axis 'tp': attention over a sequence split across ranks needs context parallelism (a zigzag split with whole keys and values); all-gather the sequence first}}
  %o = tfm.attention %q, %q, %q heads 2 kv_heads 2 head_dim 4 {causal} : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %o : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// A nonlinearity of a partial value.
dist.mesh @mesh ["tp" = 2]
func.func @gelu_of_partial(%p: tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>) -> tensor<4x1x8xf32> {
  // expected-error @+1 {{operand #0 is P on mesh axis 'tp': a nonlinear op of a partial value is not the op of the sum}}
  %y = tfm.gelu %p approximate none : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %r = dist.all_reduce %y on @mesh["tp"] sum : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xf32>
  return %r : tensor<4x1x8xf32>
}

// -----

// Contracting features split over tp against a whole weight.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x4xf32> init normal(2.000000e-02)
func.func @contract_split_features(%a: tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w = tfm.get_param @proj.weight : tensor<8x4xf32>
  // expected-error @+1 {{'tfm.linear' op operand #1 (from tfm.get_param) is R on mesh axis 'tp': a GEMM whose input is split on its features needs the weight split on its input features (S(1))}}
  %p = tfm.linear %a, %w : (tensor<4x1x4xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x4xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %p : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}

// -----

// Returning a partial loss.
dist.mesh @mesh ["tp" = 2]
func.func @return_partial(%l: tensor<f32, #dist.layout<@mesh, tp = P>>) -> tensor<f32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'func.return' op returns value #0 that is P on mesh axis 'tp'; a function result must be whole on every rank}}
  return %l : tensor<f32, #dist.layout<@mesh, tp = P>>
}

// -----

// A parameter shard of the wrong size for the mesh.
dist.mesh @mesh ["tp" = 4]
tfm.param @fc.weight : tensor<16x8xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
func.func @wrong_shard() -> tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  // expected-error @+1 {{'tfm.get_param' op the shard of @fc.weight must have 4 elements in dimension 0 on mesh @mesh, got 8}}
  %w = tfm.get_param @fc.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %w : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// A parameter that cannot be split as declared.
dist.mesh @mesh ["tp" = 4]
// expected-error @+1 {{'tfm.param' op dimension 1 (6) cannot be split into 1 block(s) over 4 ranks of mesh axis 'tp'}}
tfm.param @w : tensor<8x6xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
func.func @indivisible_param() -> tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>> {
  %w = tfm.get_param @w : tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
  return %w : tensor<8x2xf32, #dist.layout<@mesh, tp = S(1)>>
}

// -----

// A layout naming an axis the mesh does not have.
dist.mesh @mesh ["tp" = 2]
func.func @unknown_axis(%x: tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>> {
  // expected-error @+1 {{'tfm.silu' op layout of operand #0 names axis 'dp' that mesh @mesh does not have}}
  %y = tfm.silu %x : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
  return %y : tensor<2x1x8xf32, #dist.layout<@mesh, dp = S(1)>>
}

// -----

// Layouts without a mesh.
func.func @no_mesh(%x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  // expected-error @+1 {{'tfm.silu' op uses layouts but the module has no dist.mesh}}
  %y = tfm.silu %x : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %y : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}

// -----

// The loss's count must be the whole batch's: a rank's own count (partial
// over dp) would make the shares differ from the one-device mean.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
func.func @partial_count(%z: tensor<4x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, %l: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32, #dist.layout<@mesh, dp = P>> {
  %c = tfm.label_count %l ignore_index -100 : tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32, #dist.layout<@mesh, dp = P>>
  // expected-error @+1 {{'tfm.cross_entropy' op operand #2 (from tfm.label_count) is P on mesh axis 'dp': the label count must be the whole batch's (all-reduce it first)}}
  %loss = tfm.cross_entropy %z, %l count %c ignore_index -100 : (tensor<4x1x16xf32, #dist.layout<@mesh, dp = S(1)>>, tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>, tensor<f32, #dist.layout<@mesh, dp = P>>) -> tensor<f32, #dist.layout<@mesh, dp = P>>
  return %loss : tensor<f32, #dist.layout<@mesh, dp = P>>
}

// -----

// Labels split over dp count partially.
dist.mesh @mesh ["dp" = 2, "tp" = 1]
func.func @label_count_layout(%l: tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>>) -> tensor<f32> {
  // expected-error @+1 {{'tfm.label_count' op result #0 is R on mesh axis 'dp' but its operands make it P}}
  %c = tfm.label_count %l ignore_index -100 : tensor<4x1xi64, #dist.layout<@mesh, dp = S(1)>> -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// tfm.micro_batch: micro-batch i of [M, s, b] inputs has their layout one
// dimension lower; the micro-batch dimension is whole on every rank.
dist.mesh @mesh ["dp" = 2, "cp" = 2] roles [data, context]
// CHECK-LABEL: func.func @micro_batch
// CHECK: tfm.micro_batch
func.func @micro_batch(%ids: tensor<4x8x1xi64, #dist.layout<@mesh, cp = S(1, zigzag), dp = S(2)>>) {
  %m = tfm.micro_batch %ids[1] : tensor<4x8x1xi64, #dist.layout<@mesh, cp = S(1, zigzag), dp = S(2)>> -> tensor<8x1xi64, #dist.layout<@mesh, cp = S(0, zigzag), dp = S(1)>>
  return
}

// -----

dist.mesh @mesh ["dp" = 2] roles [data]
func.func @micro_batch_split(%ids: tensor<2x8x2xi64, #dist.layout<@mesh, dp = S(0)>>) {
  // expected-error @+1 {{'tfm.micro_batch' op operand #0 is S(0) on mesh axis 'dp': the micro-batch dimension cannot be split}}
  %m = tfm.micro_batch %ids[1] : tensor<2x8x2xi64, #dist.layout<@mesh, dp = S(0)>> -> tensor<8x2xi64>
  return
}

// -----

dist.mesh @mesh ["dp" = 2] roles [data]
func.func @micro_batch_layout(%ids: tensor<4x8x1xi64, #dist.layout<@mesh, dp = S(2)>>) {
  // expected-error @+1 {{'tfm.micro_batch' op result #0 is S(0) on mesh axis 'dp' but its operands make it S(1)}}
  %m = tfm.micro_batch %ids[1] : tensor<4x8x1xi64, #dist.layout<@mesh, dp = S(2)>> -> tensor<8x1xi64, #dist.layout<@mesh, dp = S(0)>>
  return
}

// -----

// The fused residual sum and norm (tfm-fuse-elementwise) keep the norm's
// rule: the sum of two partial values is partial, and its norm is not the
// norm of the total.
dist.mesh @mesh ["tp" = 2]
tfm.param @proj.weight : tensor<8x16xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @ln.weight : tensor<8xf32> init ones
func.func @add_norm_of_partial(%a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  %w2 = tfm.get_param @proj.weight : tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %p = tfm.linear %a, %w2 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %w = tfm.get_param @ln.weight : tensor<8xf32>
  // expected-error @+1 {{'tfm.add_rms_norm' op operand #0 (from tfm.linear) is P on mesh axis 'tp': a norm of a partial value is not the norm of the sum; all-reduce or reduce-scatter it first}}
  %s, %n = tfm.add_rms_norm %p, %p, %w eps 1.0e-06 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<8xf32>) -> (tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>)
  return %n : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}


// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics | FileCheck %s

// sp-verify checks the backward ops of a train step with the same layout
// algebra as the forward: Megatron's conjugate f/g pairs, and the sums over
// sequence shards that sequence parallelism makes partial.

// A correct backward of a column-parallel then row-parallel MLP under
// sequence parallelism verifies and is left unchanged.
// CHECK-LABEL: func.func @mlp_backward
dist.mesh @mesh ["tp" = 2]
func.func @mlp_backward(%g: tensor<4x1x8xf32>,
                        %a: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>,
                        %w1: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                        %w2: tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>,
                        %dy: tensor<4x1x8xf32>)
    -> tensor<4x1x8xf32> {
  // Row-parallel GEMM: the whole output gradient gives a feature-split
  // input gradient and a column-split weight gradient.
  // CHECK: tfm.linear_grad_input
  %da = tfm.linear_grad_input %dy, %w2 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>
  %dw2 = tfm.linear_grad_weight %a, %dy : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<4x1x8xf32>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = S(1)>>
  // Column-parallel GEMM: the input gradient is partial (the g of f/g).
  %dg = tfm.linear_grad_input %da, %w1 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  %dw1 = tfm.linear_grad_weight %g, %da : (tensor<4x1x8xf32>, tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>
  // CHECK: dist.all_reduce
  %r = dist.all_reduce %dg on @mesh["tp"] sum : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x1x8xf32>
  return %r : tensor<4x1x8xf32>
}

// -----

// The input gradient of a column-parallel GEMM declared whole: the
// all-reduce (or reduce-scatter under SP) in the backward is missing.
dist.mesh @mesh ["tp" = 2]
func.func @missing_backward_reduce(%da: tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>,
                                   %w1: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32> {
  // expected-error @+1 {{'tfm.linear_grad_input' op result #0 is R on mesh axis 'tp' but its operands make it P}}
  %dg = tfm.linear_grad_input %da, %w1 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32>
  return %dg : tensor<4x1x8xf32>
}

// -----

// A column-parallel GEMM's output gradient that is not split like its
// features.
dist.mesh @mesh ["tp" = 2]
func.func @column_dy_whole(%dy: tensor<4x1x8xf32>,
                           %w1: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'tfm.linear_grad_input' op operand #0 is R on mesh axis 'tp': the gradient of a column-parallel GEMM's output must be split like its features}}
  %dg = tfm.linear_grad_input %dy, %w1 : (tensor<4x1x8xf32>, tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
  return %dg : tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>
}

// -----

// The Megatron-LM #844 shape of bug: under sequence parallelism each rank's
// LayerNorm weight gradient sums over its own sequence shard only, so it is
// partial; declaring it whole skips the all-reduce over tp and the replicas
// drift apart.
dist.mesh @mesh ["tp" = 2]
func.func @sp_norm_weight_grad(%dy: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                               %x: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                               %w: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+1 {{'tfm.layer_norm_grad' op result #1 is R on mesh axis 'tp' but its operands make it P}}
  %dx, %dw, %db = tfm.layer_norm_grad %dy, %x, %w eps 1.0e-05 : (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>) -> (tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>)
  return %dx, %dw, %db : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A norm's backward fed a partial gradient.
dist.mesh @mesh ["tp" = 2]
func.func @norm_grad_partial(%dy: tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>,
                             %x: tensor<4x1x8xf32>, %w: tensor<8xf32>)
    -> tensor<4x1x8xf32> {
  // expected-error @+1 {{'tfm.rms_norm_grad' op operand #0 is P on mesh axis 'tp': must be sharded like the norm's input (R)}}
  %dx, %dw = tfm.rms_norm_grad %dy, %x, %w eps 1.0e-06 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = P>>, tensor<4x1x8xf32>, tensor<8xf32>) -> (tensor<4x1x8xf32>, tensor<8xf32>)
  return %dx : tensor<4x1x8xf32>
}

// -----

// Weight gradient from an input and an output gradient split over
// different tokens.
dist.mesh @mesh ["tp" = 2]
func.func @tokens_mismatch(%x: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                           %dy: tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'tfm.linear_grad_weight' op operand #1 is S(1) on mesh axis 'tp': must be split over the tokens like the input (S(0))}}
  %dw = tfm.linear_grad_weight %x, %dy : (tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x2x8xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
  return %dw : tensor<8x8xf32, #dist.layout<@mesh, tp = P>>
}

// -----

// The loss gradient must be whole on every rank.
dist.mesh @mesh ["tp" = 2]
func.func @ce_grad_partial(%logits: tensor<4x1x16xf32>, %labels: tensor<4x1xi64>,
                           %dl: tensor<f32, #dist.layout<@mesh, tp = P>>) -> tensor<4x1x16xf32> {
  // expected-error @+1 {{'tfm.cross_entropy_grad' op operand #2 is P on mesh axis 'tp': the loss gradient must be whole}}
  %d = tfm.cross_entropy_grad %logits, %labels, %dl ignore_index -100 : (tensor<4x1x16xf32>, tensor<4x1xi64>, tensor<f32, #dist.layout<@mesh, tp = P>>) -> tensor<4x1x16xf32>
  return %d : tensor<4x1x16xf32>
}

// -----

// One sum of squares over a split and a replicated gradient: summed over
// the ranks, the replicated one would count once per rank.
dist.mesh @mesh ["tp" = 2]
func.func @sum_squares_mixed(%gs: tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>,
                             %g: tensor<8xf32>) -> tensor<f32, #dist.layout<@mesh, tp = P>> {
  // expected-error @+1 {{'tfm.sum_squares' op operand #1 is R on mesh axis 'tp': operand #0 is S(0); one sum of squares takes inputs all split or all replicated over each axis (a mix counts the replicated ones once per rank)}}
  %s = tfm.sum_squares %gs, %g : tensor<8x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<8xf32> -> tensor<f32, #dist.layout<@mesh, tp = P>>
  return %s : tensor<f32, #dist.layout<@mesh, tp = P>>
}

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


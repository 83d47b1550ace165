// RUN: sp-opt %s -split-input-file --sp-report="comm=true" -verify-diagnostics -o /dev/null

// sp-report counts bytes in checked int64: a count past 2^63 - 1 is an error
// at the op that makes it so, never a wrapped (negative) number in the JSON.

// One coalesced all-reduce of two 2^62-byte gradients: 2 * 2^63 / 2 bytes.
dist.mesh @mesh ["tp" = 2]
func.func @one_op(%x: tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>, %w: tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>) {
  // expected-error @+1 {{'dist.all_reduce_coalesced' op the bytes it sends on axis 'tp' (2 ranks) overflow int64}}
  %y:2 = dist.all_reduce_coalesced %x, %w on @mesh["tp"] sum : (tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>, tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>)
  return %y#0, %y#1 : tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>
}

// -----

// Two all-reduces of 2^62 bytes each send 2^62; together 2^63.
dist.mesh @mesh ["tp" = 2]
func.func @total(%x: tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>, %w: tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>>) -> (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>) {
  %a = dist.all_reduce %x on @mesh["tp"] sum : tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>> -> tensor<1152921504606846976xf32>
  // expected-error @+1 {{'dist.all_reduce' op the communication report overflows int64 bytes at this op}}
  %b = dist.all_reduce %w on @mesh["tp"] sum : tensor<1152921504606846976xf32, #dist.layout<@mesh, tp = P>> -> tensor<1152921504606846976xf32>
  return %a, %b : tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>
}

// -----

// sp-report takes the module's one mesh (dist::getMesh).
dist.mesh @mesh ["tp" = 2]
// expected-error @+1 {{'dist.mesh' op is a second mesh, but the SPMD passes take a module with at most one (mesh @mesh is the first)}}
dist.mesh @grid ["tp" = 2]

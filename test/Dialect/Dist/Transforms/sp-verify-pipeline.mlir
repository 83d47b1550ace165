// RUN: sp-opt %s -split-input-file -sp-verify -verify-diagnostics
//
// sp-verify checks the point-to-point traffic of a pipeline's stage
// functions: the n-th dist.send of stage a to stage b (offsets wrap around
// the pipeline axis) is received by the n-th dist.recv of stage b from a,
// with the same type, and running the stages with sends that never wait and
// recvs that wait for their send finishes.

// A correct 1F1B schedule of two micro-batches on two stages: stage 0 runs
// F0 F1 B0 B1, stage 1 F0 B0 F1 B1.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%x0: tensor<4xf32>, %x1: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  dist.send %x0 on @mesh["pp"] offset 1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  dist.send %x1 on @mesh["pp"] offset 1 {tfm.in_micro_batch = 1 : i64} : tensor<4xf32>
  %d0 = dist.recv on @mesh["pp"] offset 1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  %d1 = dist.recv on @mesh["pp"] offset 1 {tfm.in_micro_batch = 1 : i64} : tensor<4xf32>
  return
}
func.func @stage1(%x0: tensor<4xf32>, %x1: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %y0 = dist.recv on @mesh["pp"] offset -1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  dist.send %y0 on @mesh["pp"] offset -1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  %y1 = dist.recv on @mesh["pp"] offset -1 {tfm.in_micro_batch = 1 : i64} : tensor<4xf32>
  dist.send %y1 on @mesh["pp"] offset -1 {tfm.in_micro_batch = 1 : i64} : tensor<4xf32>
  return
}

// -----

// Three stages; stage 2 sends back to stage 0 with offset 1 (wrapping
// around the axis), stage 0 receives it with offset -1.
dist.mesh @mesh ["pp" = 3, "dp" = 2] roles [pipeline, data]
func.func @stage0(%x: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 3 : i64} {
  dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
  %z = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  return
}
func.func @stage1(%x: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 3 : i64} {
  %y = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  dist.send %y on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}
func.func @stage2(%x: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 3 : i64} {
  %y = dist.recv on @mesh["pp"] offset 2 : tensor<4xf32>
  dist.send %y on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}

// -----

// Swapped: stage 0 waits for micro-batch 0's gradient before it sends
// micro-batch 0's activation, which stage 1 waits for.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-error @+1 {{'dist.recv' op pipeline deadlock: stage 0 waits at this recv (micro-batch 0) for stage 1, which waits at its recv (micro-batch 0) for stage 0: each waits for a send issued only after its own recv}}
  %d0 = dist.recv on @mesh["pp"] offset 1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  dist.send %x0 on @mesh["pp"] offset 1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  return
}
func.func @stage1(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-note @+1 {{stage 1 waits here (micro-batch 0)}}
  %y0 = dist.recv on @mesh["pp"] offset -1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  dist.send %y0 on @mesh["pp"] offset -1 {tfm.in_micro_batch = 0 : i64} : tensor<4xf32>
  return
}

// -----

// A deadlock around three stages, each receiving before it sends.
dist.mesh @mesh ["pp" = 3] roles [pipeline]
func.func @stage0(%x: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 3 : i64} {
  // expected-error @+1 {{pipeline deadlock: stage 0 waits at this recv for stage 2, which waits at its recv for stage 1, which waits at its recv for stage 0}}
  %z = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}
func.func @stage1(%x: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 3 : i64} {
  // expected-note @+1 {{stage 1 waits here}}
  %y = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}
func.func @stage2(%x: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 2 : i64, tfm.pipeline_stages = 3 : i64} {
  // expected-note @+1 {{stage 2 waits here}}
  %y = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}

// -----

// A missing recv: stage 1 receives only one of the two sends.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%x0: tensor<4xf32>, %x1: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  dist.send %x0 on @mesh["pp"] offset 1 : tensor<4xf32>
  // expected-error @+1 {{'dist.send' op sends to pipeline stage 1 (its send #1 there), but stage 1 has only 1 dist.recv from stage 0 on mesh axis 'pp'}}
  dist.send %x1 on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}
func.func @stage1(%x0: tensor<4xf32>, %x1: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %y0 = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  return
}

// -----

// A recv without its send.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  return
}
func.func @stage1(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-error @+1 {{'dist.recv' op receives from pipeline stage 0 (its recv #0 from there), but stage 0 has only 0 dist.send to stage 1 on mesh axis 'pp'}}
  %y0 = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  return
}

// -----

// Sent and received types differ.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-error @+1 {{'dist.send' op sends 'tensor<4xf32>' to pipeline stage 1, whose matching dist.recv (its #0 from stage 0) receives 'tensor<8xf32>' (4 elements, not 8)}}
  dist.send %x0 on @mesh["pp"] offset 1 : tensor<4xf32>
  return
}
func.func @stage1(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-note @+1 {{the matching dist.recv}}
  %y0 = dist.recv on @mesh["pp"] offset -1 : tensor<8xf32>
  return
}

// -----

// The same element count in another layout is another type too.
dist.mesh @mesh ["pp" = 2, "dp" = 2] roles [pipeline, data]
func.func @stage0(%x0: tensor<4xf32, #dist.layout<@mesh, dp = P>>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-error @+1 {{'dist.send' op sends 'tensor<4xf32, #dist.layout<@mesh, dp = P>>' to pipeline stage 1, whose matching dist.recv (its #0 from stage 0) receives 'tensor<4xf32>'}}
  dist.send %x0 on @mesh["pp"] offset 1 : tensor<4xf32, #dist.layout<@mesh, dp = P>>
  return
}
func.func @stage1(%x0: tensor<4xf32>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  // expected-note @+1 {{the matching dist.recv}}
  %y0 = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  return
}

// -----

// Stage functions need the pipeline axis on the mesh.
dist.mesh @mesh ["dp" = 2] roles [data]
// expected-error @+1 {{'func.func' op is one of 2 pipeline stages, but mesh @mesh has no axis with role pipeline}}
func.func @stage0() attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  return
}
func.func @stage1() attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  return
}

// -----

// Micro-batch loops run as they execute: stage 0's backward part lags its
// forward part by one micro-batch (F0, F1 B0, F2 B1, B2), stage 1 runs each
// micro-batch's forward and backward together: every recv finds its send.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%ids: tensor<3x4x1xi64>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  tfm.micro_batch_loop(%ids) {lag = 1 : i64} : (tensor<3x4x1xi64>) -> () {
  ^bb0(%i: tensor<4x1xi64>):
    %x = tfm.fill 1.000000e+00 : tensor<4xf32>
    dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
    %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    %d = dist.recv on @mesh["pp"] offset 1 : tensor<4xf32>
    tfm.yield
  }
  return
}
func.func @stage1(%ids: tensor<3x4x1xi64>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  tfm.micro_batch_loop(%ids) : (tensor<3x4x1xi64>) -> () {
  ^bb0(%i: tensor<4x1xi64>):
    %y = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
    %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    dist.send %y on @mesh["pp"] offset -1 : tensor<4xf32>
    tfm.yield
  }
  return
}

// -----

// The lags swapped: stage 1 waits for micro-batch 1's activation before it
// sends micro-batch 0's gradient, and stage 0 sends micro-batch 1's
// activation only after that gradient.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%ids: tensor<3x4x1xi64>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  tfm.micro_batch_loop(%ids) : (tensor<3x4x1xi64>) -> () {
  ^bb0(%i: tensor<4x1xi64>):
    %x = tfm.fill 1.000000e+00 : tensor<4xf32>
    dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
    %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    // expected-error @+1 {{'dist.recv' op pipeline deadlock: stage 0 waits at this recv (micro-batch 0) for stage 1, which waits at its recv (micro-batch 1) for stage 0: each waits for a send issued only after its own recv}}
    %d = dist.recv on @mesh["pp"] offset 1 : tensor<4xf32>
    tfm.yield
  }
  return
}
func.func @stage1(%ids: tensor<3x4x1xi64>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  tfm.micro_batch_loop(%ids) {lag = 1 : i64} : (tensor<3x4x1xi64>) -> () {
  ^bb0(%i: tensor<4x1xi64>):
    // expected-note @+1 {{stage 1 waits here (micro-batch 1)}}
    %y = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
    %seed = tfm.fill 1.000000e+00 {tfm.backward_begins} : tensor<f32>
    %z = tfm.fill 1.000000e+00 : tensor<4xf32>
    dist.send %z on @mesh["pp"] offset -1 : tensor<4xf32>
    tfm.yield
  }
  return
}

// -----

// A loop's send runs once per micro-batch: stage 0 sends two activations,
// stage 1 receives one.
dist.mesh @mesh ["pp" = 2] roles [pipeline]
func.func @stage0(%ids: tensor<2x4x1xi64>) attributes {tfm.forward, tfm.pipeline_stage = 0 : i64, tfm.pipeline_stages = 2 : i64} {
  tfm.micro_batch_loop(%ids) : (tensor<2x4x1xi64>) -> () {
  ^bb0(%i: tensor<4x1xi64>):
    %x = tfm.fill 1.000000e+00 : tensor<4xf32>
    // expected-error @+1 {{'dist.send' op sends to pipeline stage 1 (its send #1 there (micro-batch 1)), but stage 1 has only 1 dist.recv from stage 0 on mesh axis 'pp'}}
    dist.send %x on @mesh["pp"] offset 1 : tensor<4xf32>
    tfm.yield
  }
  return
}
func.func @stage1(%ids: tensor<2x4x1xi64>) attributes {tfm.forward, tfm.pipeline_stage = 1 : i64, tfm.pipeline_stages = 2 : i64} {
  %y = dist.recv on @mesh["pp"] offset -1 : tensor<4xf32>
  return
}

// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime -verify-diagnostics

// The runtime computes in f32: a bf16 parameter is read as stored, and so
// is the embedding (byte movers); an op that computes on it needs
// sp-legalize-precision first.
tfm.param @w : tensor<8x4xbf16> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x4xbf16>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x4xbf16>) -> tensor<4x1x4xbf16>
  // expected-error @+1 {{'tfm.scale' op uses 'bf16', which the runtime computes in f32: run sp-legalize-precision first}}
  %s = tfm.scale %x by 2.0 : tensor<4x1x4xbf16>
  %l = tfm.cross_entropy %s, %labels ignore_index -100 : (tensor<4x1x4xbf16>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The step takes token ids and labels and returns the loss.
tfm.param @w : tensor<8x4xf32> init normal(2.000000e-02)
// expected-error @+1 {{'func.func' op must be (input_ids: [s, b] i64, labels: [s, b] i64) -> (tensor<f32>, ...) to be lowered, got '(tensor<4x1xi64>) -> tensor<f32>'}}
func.func @forward(%ids: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %w = tfm.get_param @w : tensor<8x4xf32>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x4xf32>) -> tensor<4x1x4xf32>
  %l = tfm.cross_entropy %x, %ids ignore_index -100 : (tensor<4x1x4xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{convert-sp-to-runtime: the module has no function marked tfm.forward or tfm.train_step}}
module {
  func.func @other() {
    return
  }
}

// -----

// The fused all_gather + linear is lowered along the leading dimension only.
dist.mesh @mesh ["tp" = 2]
tfm.param @x : tensor<4x2x8xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x2xi64>, %labels: tensor<4x2xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.get_param @x : tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{'dist.all_gather_matmul' op is lowered along dimension 0 only, got dim 1}}
  %y = dist.all_gather_matmul %x, %w on @mesh["tp"] dim 1 chunks 1 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<8x8xf32>) -> tensor<4x2x8xf32>
  %l = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<4x2x8xf32>, tensor<4x2xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The fused linear + reduce_scatter too.
dist.mesh @mesh ["tp" = 2]
tfm.param @x : tensor<4x2x8xf32> init normal(2.000000e-02)
tfm.param @w : tensor<8x8xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.get_param @x : tensor<4x2x8xf32>
  %w = tfm.get_param @w : tensor<8x8xf32>
  // expected-error @+1 {{'dist.matmul_reduce_scatter' op is lowered along dimension 0 only, got dim 1}}
  %y = dist.matmul_reduce_scatter %x, %w on @mesh["tp"] dim 1 chunks 1 : (tensor<4x2x8xf32>, tensor<8x8xf32>) -> tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(1)>>
  %l = tfm.cross_entropy %y, %labels ignore_index -100 : (tensor<4x1x8xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Layouts are read on the module's mesh: one naming another is not lowered.
dist.mesh @mesh ["tp" = 2]
tfm.param @w : tensor<8x4xf32, #dist.layout<@grid, tp = S(1)>> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  // expected-error @+1 {{'tfm.get_param' op cannot be lowered: the layout of 'tensor<8x2xf32, #dist.layout<@grid, tp = S(1)>>' names mesh @grid but is used on mesh @mesh}}
  %w = tfm.get_param @w : tensor<8x2xf32, #dist.layout<@grid, tp = S(1)>>
  %x = tfm.embedding %ids, %w : (tensor<4x1xi64>, tensor<8x2xf32, #dist.layout<@grid, tp = S(1)>>) -> tensor<4x1x2xf32, #dist.layout<@grid, tp = S(2)>>
  %l = tfm.cross_entropy %x, %labels ignore_index -100 : (tensor<4x1x2xf32, #dist.layout<@grid, tp = S(2)>>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}


// -----

// Every op of the step needs a RuntimeLoweringOpInterface: a call to another
// function has none (tfm and dist ops have theirs; tfm.param and dist.mesh
// stay at module level).
func.func private @helper(tensor<4x1xi64>) -> tensor<f32>
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  // expected-error @+1 {{'func.call' op has no runtime lowering (it does not implement RuntimeLoweringOpInterface)}}
  %l = func.call @helper(%ids) : (tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

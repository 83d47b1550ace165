// RUN: sp-opt %s -split-input-file -convert-sp-to-runtime -verify-diagnostics

// convert-sp-to-runtime takes bf16/f16 tensors on the ops that move bytes
// (the MovesBytes trait), the GEMMs and the row ops
// (StoragePrecisionOpInterface) and the elementwise maps and activation
// gradients (MapsElementsAsStored) only; any other op must have been
// made to compute in f32 by sp-legalize-precision.

func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x16xf32>
  %h = tfm.convert %x : tensor<8x16xf32> -> tensor<8x16xbf16>
  %b32 = tfm.fill 1.0 : tensor<16xf32>
  %b = tfm.convert %b32 : tensor<16xf32> -> tensor<16xbf16>
  // expected-error @+1 {{'tfm.bias_add' op uses 'bf16', which the runtime computes in f32: run sp-legalize-precision first}}
  %y = tfm.bias_add %h, %b : tensor<8x16xbf16>, tensor<16xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// A reduction adds numbers: it is not a byte mover.
dist.mesh @mesh ["tp" = 2]
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x16xf32, #dist.layout<@mesh, tp = P>>
  %h = tfm.convert %x : tensor<8x16xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x16xf16, #dist.layout<@mesh, tp = P>>
  // expected-error @+1 {{'dist.all_reduce' op uses 'f16', which the runtime computes in f32: run sp-legalize-precision first}}
  %r = dist.all_reduce %h on @mesh["tp"] sum : tensor<8x16xf16, #dist.layout<@mesh, tp = P>> -> tensor<8x16xf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// The runtime reads the step's results (the loss, the gradients) in f32.
tfm.param @w : tensor<8x4xf32> init normal(2.000000e-02)
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> (tensor<f32>, tensor<8x4xbf16> {tfm.grad_of = @w}) attributes {tfm.train_step} {
  %l = tfm.fill 1.0 : tensor<f32>
  %g = tfm.fill 0.0 : tensor<8x4xf32>
  %g16 = tfm.convert %g : tensor<8x4xf32> -> tensor<8x4xbf16>
  // expected-error @+1 {{'func.return' op returns 'bf16': the runtime reads the step's results in f32}}
  return %l, %g16 : tensor<f32>, tensor<8x4xbf16>
}

// -----

// The optimizer updates f32 parameters: a bf16 one needs f32 master weights.
tfm.param @w : tensor<8x4xbf16> init normal(2.000000e-02)
func.func @train_step(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.train_step} {
  %l = tfm.fill 1.0 : tensor<f32>
  %lr = tfm.hyperparameter lr default 0.1
  %weight_decay = tfm.hyperparameter weight_decay default 0.0
  %w = tfm.get_param @w : tensor<8x4xbf16>
  %g = tfm.fill 0.0 : tensor<8x4xf32>
  %g16 = tfm.convert %g : tensor<8x4xf32> -> tensor<8x4xbf16>
  // expected-error @+1 {{'tfm.sgd_update' op updates a parameter in 'bf16': the runtime's optimizer updates f32 parameters (keep f32 master weights)}}
  tfm.sgd_update @w, %g16 scale %l lr %lr weight_decay %weight_decay : tensor<8x4xbf16>, tensor<f32>
  return %l : tensor<f32>
}

// -----

// A GEMM reads and writes any storage type (StoragePrecisionOpInterface);
// a reduction of its partial result does not.
dist.mesh @mesh ["tp" = 2]
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32> attributes {tfm.forward} {
  %x = tfm.fill 1.0 : tensor<8x16xf32>
  %h = tfm.convert %x : tensor<8x16xf32> -> tensor<8x16xbf16>
  %w = tfm.fill 1.0 : tensor<16x16xf32, #dist.layout<@mesh, tp = S(0)>>
  %wb = tfm.convert %w : tensor<16x16xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<16x16xbf16, #dist.layout<@mesh, tp = S(0)>>
  %p = tfm.linear_grad_input %h, %wb : (tensor<8x16xbf16>, tensor<16x16xbf16, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x16xbf16, #dist.layout<@mesh, tp = P>>
  // expected-error @+1 {{'dist.all_reduce' op uses 'bf16', which the runtime computes in f32: run sp-legalize-precision first}}
  %r = dist.all_reduce %p on @mesh["tp"] sum : tensor<8x16xbf16, #dist.layout<@mesh, tp = P>> -> tensor<8x16xbf16>
  %l = tfm.fill 1.0 : tensor<f32>
  return %l : tensor<f32>
}

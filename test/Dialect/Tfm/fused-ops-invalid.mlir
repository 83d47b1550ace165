// RUN: sp-opt %s -split-input-file -verify-diagnostics

// tfm.dropout_add rejects what tfm.dropout rejects, and a rank the runtime's
// dropout does not take.

func.func @rate(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.dropout_add' op rate must be in [0, 1), got 1}}
  %y = tfm.dropout_add %x, %r rate 1.0 stream 0 : tensor<8x16xf32>
  return
}

// -----

func.func @rank(%x: tensor<2x2x2x2xf32>, %r: tensor<2x2x2x2xf32>) {
  // expected-error @+1 {{'tfm.dropout_add' op has rank 4; the runtime's dropout takes rank <= 3}}
  %y = tfm.dropout_add %x, %r rate 0.1 stream 0 : tensor<2x2x2x2xf32>
  return
}

// -----

func.func @stream(%x: tensor<8x16xf32>, %r: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.dropout_add' op attribute 'stream' failed to satisfy constraint}}
  %y = tfm.dropout_add %x, %r rate 0.1 stream -1 : tensor<8x16xf32>
  return
}

// -----

// tfm.linear_gelu checks what tfm.linear checks, and one type for pre and
// the result.

func.func @gelu_features(%x: tensor<8x32xbf16>, %w: tensor<16x128xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu' op weight [16, 128] (in_out) has 16 input features but the input's last dimension is 32}}
  %p, %y = tfm.linear_gelu %x, %w weight_layout in_out approximate tanh : (tensor<8x32xbf16>, tensor<16x128xbf16>) -> (tensor<8x128xbf16>, tensor<8x128xbf16>)
  return
}

// -----

func.func @gelu_bias(%x: tensor<8x32xf32>, %w: tensor<128x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tfm.linear_gelu' op bias must have shape [128], got [32]}}
  %p, %y = tfm.linear_gelu %x, %w, %b approximate none : (tensor<8x32xf32>, tensor<128x32xf32>, tensor<32xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  return
}

// -----

func.func @gelu_types(%x: tensor<8x32xbf16>, %w: tensor<128x32xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu' op result type 'tensor<8x128xf32>' must equal pre's 'tensor<8x128xbf16>'}}
  %p, %y = tfm.linear_gelu %x, %w approximate tanh : (tensor<8x32xbf16>, tensor<128x32xbf16>) -> (tensor<8x128xbf16>, tensor<8x128xf32>)
  return
}

// -----

func.func @gelu_shape(%x: tensor<8x32xbf16>, %w: tensor<128x32xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu' op result shape must be [8, 128], got [8, 64]}}
  %p, %y = tfm.linear_gelu %x, %w approximate tanh : (tensor<8x32xbf16>, tensor<128x32xbf16>) -> (tensor<8x64xbf16>, tensor<8x64xbf16>)
  return
}

// -----

// tfm.linear_gelu_grad checks what tfm.linear_grad_input checks, pre's
// shape, dx of pre's type and the bias gradient's shape and type.

func.func @gelu_grad_dy(%dy: tensor<8x32xbf16>, %w: tensor<128x64xbf16>, %p: tensor<8x128xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu_grad' op dy's last dimension must be the weight's 64 output features, got [8, 32]}}
  %dx = tfm.linear_gelu_grad %dy, %w, %p weight_layout in_out approximate tanh : (tensor<8x32xbf16>, tensor<128x64xbf16>, tensor<8x128xbf16>) -> tensor<8x128xbf16>
  return
}

// -----

func.func @gelu_grad_pre(%dy: tensor<8x32xbf16>, %w: tensor<128x32xbf16>, %p: tensor<8x64xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu_grad' op pre must have shape [8, 128]}}
  %dx = tfm.linear_gelu_grad %dy, %w, %p weight_layout in_out approximate tanh : (tensor<8x32xbf16>, tensor<128x32xbf16>, tensor<8x64xbf16>) -> tensor<8x64xbf16>
  return
}

// -----

func.func @gelu_grad_dx(%dy: tensor<8x32xbf16>, %w: tensor<128x32xbf16>, %p: tensor<8x128xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu_grad' op dx must have pre's type 'tensor<8x128xbf16>', got 'tensor<8x128xf32>'}}
  %dx = tfm.linear_gelu_grad %dy, %w, %p weight_layout in_out approximate tanh : (tensor<8x32xbf16>, tensor<128x32xbf16>, tensor<8x128xbf16>) -> tensor<8x128xf32>
  return
}

// -----

func.func @gelu_grad_dbias(%dy: tensor<8x32xbf16>, %w: tensor<128x32xbf16>, %p: tensor<8x128xbf16>) {
  // expected-error @+1 {{'tfm.linear_gelu_grad' op dbias must have dx's element type ('bf16') or f32, not 'f16'}}
  %dx, %db = tfm.linear_gelu_grad %dy, %w, %p weight_layout in_out approximate tanh : (tensor<8x32xbf16>, tensor<128x32xbf16>, tensor<8x128xbf16>) -> (tensor<8x128xbf16>, tensor<128xf16>)
  return
}

// -----

// tfm.swiglu and tfm.swiglu_grad take operands and results of one type.

func.func @swiglu_types(%g: tensor<8x16xf32>, %u: tensor<8x16xbf16>) {
  // expected-error @+1 {{'tfm.swiglu' op failed to verify that all of {gate, up, result} have same type}}
  %h = "tfm.swiglu"(%g, %u) : (tensor<8x16xf32>, tensor<8x16xbf16>) -> tensor<8x16xf32>
  return
}

// -----

func.func @swiglu_shape(%g: tensor<8x16xf32>, %u: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.swiglu' op failed to verify that all of {gate, up, result} have same type}}
  %h = "tfm.swiglu"(%g, %u) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @swiglu_grad_types(%dy: tensor<8x16xf32>, %g: tensor<8x16xf32>, %u: tensor<8x16xf32>) {
  // expected-error @+1 {{'tfm.swiglu_grad' op failed to verify that all of {dy, gate, up, dgate, dup} have same type}}
  %dg, %du = "tfm.swiglu_grad"(%dy, %g, %u) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xbf16>)
  return
}

// -----

// tfm.add_layer_norm and add_rms_norm: the sum's operands and results have
// one type; eps and the weights as the norms'.

func.func @add_norm_types(%x: tensor<8x16xf32>, %r: tensor<8x16xbf16>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tfm.add_layer_norm' op failed to verify that all of {lhs, rhs, sum, result} have same type}}
  %s, %y = tfm.add_layer_norm %x, %r, %w eps 1.0e-05 : (tensor<8x16xf32>, tensor<8x16xbf16>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

func.func @add_norm_eps(%x: tensor<8x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tfm.add_rms_norm' op eps must be > 0, got 0}}
  %s, %y = tfm.add_rms_norm %x, %x, %w eps 0.0 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

func.func @add_norm_weight(%x: tensor<8x16xf32>, %w: tensor<16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'tfm.add_layer_norm' op bias must have shape [16] (the input's last dimension), got [8]}}
  %s, %y = tfm.add_layer_norm %x, %x, %w, %b eps 1.0e-05 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

func.func @add_norm_weight_type(%x: tensor<8x16xbf16>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tfm.add_rms_norm' op weight element type 'f32' differs from the input's 'bf16'}}
  %s, %y = tfm.add_rms_norm %x, %x, %w eps 1.0e-05 : (tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<16xf32>) -> (tensor<8x16xbf16>, tensor<8x16xbf16>)
  return
}

// -----

func.func @add_norm_dropout_rate(%x: tensor<8x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tfm.add_layer_norm' op dropout must be in [0, 1), got 1}}
  %s, %y = tfm.add_layer_norm %x, %x, %w dropout 1.0 stream 0 eps 1.0e-05 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

func.func @add_norm_dropout_rank(%x: tensor<2x2x2x2xf32>, %w: tensor<2xf32>) {
  // expected-error @+1 {{'tfm.add_rms_norm' op has rank 4; the runtime's dropout takes rank <= 3}}
  %s, %y = tfm.add_rms_norm %x, %x, %w dropout 0.1 stream 0 eps 1.0e-05 : (tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>, tensor<2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>)
  return
}

// -----

func.func @add_norm_dropout_stream(%x: tensor<8x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tfm.add_rms_norm' op needs both `dropout` and `stream`, or neither}}
  %s, %y = "tfm.add_rms_norm"(%x, %x, %w) {dropout = 1.0e-01 : f64, eps = 1.0e-05 : f64} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

// tfm.linear_grad_weight_bias checks what tfm.linear_grad_weight and
// tfm.bias_grad check.

func.func @grad_weight_bias_rows(%x: tensor<8x32xbf16>, %dy: tensor<4x96xbf16>) {
  // expected-error @+1 {{'tfm.linear_grad_weight_bias' op input [8, 32] and dy [4, 96] must have the same leading dimensions}}
  %dw, %db = tfm.linear_grad_weight_bias %x, %dy weight_layout in_out : (tensor<8x32xbf16>, tensor<4x96xbf16>) -> (tensor<32x96xbf16>, tensor<96xbf16>)
  return
}

// -----

func.func @grad_weight_bias_dw(%x: tensor<8x32xbf16>, %dy: tensor<8x96xbf16>) {
  // expected-error @+1 {{'tfm.linear_grad_weight_bias' op dweight must have shape [96, 32]}}
  %dw, %db = tfm.linear_grad_weight_bias %x, %dy : (tensor<8x32xbf16>, tensor<8x96xbf16>) -> (tensor<32x96xbf16>, tensor<96xbf16>)
  return
}

// -----

func.func @grad_weight_bias_db(%x: tensor<8x32xbf16>, %dy: tensor<8x96xbf16>) {
  // expected-error @+1 {{'tfm.linear_grad_weight_bias' op dbias must have shape [96]}}
  %dw, %db = tfm.linear_grad_weight_bias %x, %dy weight_layout in_out : (tensor<8x32xbf16>, tensor<8x96xbf16>) -> (tensor<32x96xbf16>, tensor<32xbf16>)
  return
}

// -----

func.func @grad_weight_bias_db_type(%x: tensor<8x32xbf16>, %dy: tensor<8x96xbf16>) {
  // expected-error @+1 {{'tfm.linear_grad_weight_bias' op dbias must have dy's element type ('bf16') or f32, not 'f16'}}
  %dw, %db = tfm.linear_grad_weight_bias %x, %dy weight_layout in_out : (tensor<8x32xbf16>, tensor<8x96xbf16>) -> (tensor<32x96xbf16>, tensor<96xf16>)
  return
}

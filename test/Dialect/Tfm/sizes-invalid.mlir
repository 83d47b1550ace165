// RUN: sp-opt %s -split-input-file -verify-diagnostics

// Every tensor type a tfm op verifies has an element count and a byte size
// that fit in int64, and so does every product of its attributes it checks a
// shape against (heads * head_dim, ...). An overflow is an error at the op.

// A parameter of 2^33 * 2^33 elements.
// expected-error @+1 {{'tfm.param' op type has shape [8589934592, 8589934592], whose element count overflows int64}}
tfm.param @w : tensor<8589934592x8589934592xf32> init zeros

// -----

// 2^62 bf16 elements count fine but are 2^63 bytes.
// expected-error @+1 {{'tfm.param' op type has shape [4611686018427387904] of 'bf16', whose size in bytes overflows int64}}
tfm.param @w : tensor<4611686018427387904xbf16> init zeros

// -----

// The largest bf16 parameter, 2^63 - 2 bytes, is accepted.
tfm.param @w : tensor<4611686018427387903xbf16> init zeros

// -----

// A huge operand: the op names it before its own checks run.
func.func @operand(%x: tensor<4294967296x4294967296x2xf32>) -> tensor<4294967296x4294967296x2xf32> {
  // expected-error @+1 {{'tfm.silu' op operand #0 has shape [4294967296, 4294967296, 2], whose element count overflows int64}}
  %y = tfm.silu %x : tensor<4294967296x4294967296x2xf32>
  return %y : tensor<4294967296x4294967296x2xf32>
}

// -----

// A result whose element count overflows while the operand's fits (a linear
// widening the last dimension from 1 to 4 features: 2^61 x 4 elements).
func.func @result(%x: tensor<2305843009213693952x1xf16>, %w: tensor<4x1xf16>) -> tensor<2305843009213693952x4xf16> {
  // expected-error @+1 {{'tfm.linear' op result #0 has shape [2305843009213693952, 4], whose element count overflows int64}}
  %y = tfm.linear %x, %w : (tensor<2305843009213693952x1xf16>, tensor<4x1xf16>) -> tensor<2305843009213693952x4xf16>
  return %y : tensor<2305843009213693952x4xf16>
}

// -----

// The gradient ops check the same (here the table gradient of an embedding).
func.func @grad(%ids: tensor<2x1xi64>, %dy: tensor<2x1x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'tfm.embedding_grad' op result #0 has shape [4611686018427387904, 4], whose element count overflows int64}}
  %d = tfm.embedding_grad %ids, %dy : (tensor<2x1xi64>, tensor<2x1x4xf32>) -> tensor<4611686018427387904x4xf32>
  return %d : tensor<4611686018427387904x4xf32>
}

// -----

// heads * head_dim past int64 (it would wrap to 0 and match nothing).
func.func @attention_width(%q: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.attention' op heads * head_dim = 4294967296 * 4294967296 overflows int64}}
  %0 = tfm.attention %q, %q, %q heads 4294967296 kv_heads 4294967296 head_dim 4294967296 : tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// The [b, heads, s, s] attention scores the memory report counts: with
// s = 2^31, b = 2 and 2 heads, 2^64 scores.
func.func @attention_scores(%q: tensor<2147483648x2x4xf16>) -> tensor<2147483648x2x4xf16> {
  // expected-error @+1 {{'tfm.attention' op the attention scores [b, heads, s, s] = 2 * 2 * 2147483648 * 2147483648 overflows int64}}
  %0 = tfm.attention %q, %q, %q heads 2 kv_heads 2 head_dim 2 : tensor<2147483648x2x4xf16>, tensor<2147483648x2x4xf16>, tensor<2147483648x2x4xf16> -> tensor<2147483648x2x4xf16>
  return %0 : tensor<2147483648x2x4xf16>
}

// -----

func.func @qkv_width(%x: tensor<1x1x12xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.qkv_split' op (heads + 2 * kv_heads) * head_dim = 3 * 4611686018427387904 overflows int64}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 1 kv_heads 1 head_dim 4611686018427387904 : tensor<1x1x12xf32> -> tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
  return %q : tensor<1x1x4xf32>
}

// -----

func.func @qkv_heads(%x: tensor<1x1x12xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.qkv_split' op 3 * heads = 3 * 4611686018427387904 overflows int64}}
  %q, %k, %v = tfm.qkv_split %x packing blocks heads 4611686018427387904 kv_heads 4611686018427387904 head_dim 1 : tensor<1x1x12xf32> -> tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>
  return %q : tensor<1x1x4xf32>
}

// -----

func.func @qkv_concat(%d: tensor<1x1x4xf32>) -> tensor<1x1x12xf32> {
  // expected-error @+1 {{'tfm.qkv_concat' op (heads + 2 * kv_heads) * head_dim = 3 * 4611686018427387904 overflows int64}}
  %0 = tfm.qkv_concat %d, %d, %d packing blocks heads 1 kv_heads 1 head_dim 4611686018427387904 : tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32> -> tensor<1x1x12xf32>
  return %0 : tensor<1x1x12xf32>
}

// -----

func.func @repeat_heads(%x: tensor<1x1x4xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{'tfm.repeat_heads' op heads * factor * head_dim = 2 * 4611686018427387904 * 2 overflows int64}}
  %0 = tfm.repeat_heads %x heads 2 head_dim 2 factor 4611686018427387904 : tensor<1x1x4xf32> -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}

// -----

func.func @repeat_heads_grad(%d: tensor<1x1x8xf32>) -> tensor<1x1x4xf32> {
  // expected-error @+1 {{'tfm.repeat_heads_grad' op heads * factor * head_dim = 2 * 4611686018427387904 * 2 overflows int64}}
  %0 = tfm.repeat_heads_grad %d heads 2 head_dim 2 factor 4611686018427387904 : tensor<1x1x8xf32> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

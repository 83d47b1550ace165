
// A recorded plan whose offset plus the value's bytes passes int64.
tfm.param @w : tensor<8x4xf32> init normal(2.000000e-02)
func.func @forward(%ids: tensor<4x1xi64>, %labels: tensor<4x1xi64>) -> tensor<f32>
    attributes {tfm.forward, dist.arena_bytes = 9223372036854775807 : i64, dist.arena_max_live = 64 : i64} {
  %w = tfm.get_param @w : tensor<8x4xf32>
  // expected-error @+1 {{'tfm.embedding' op result #0 of 'tfm.embedding' at arena offset 9223372036854775744 with 64 bytes ends past int64}}
  %x = tfm.embedding %ids, %w {dist.arena_offsets = array<i64: 9203372036854775744>} : (tensor<4x1xi64>, tensor<8x4xf32>) -> tensor<4x1x4xf32>
  %l = tfm.cross_entropy %x, %labels ignore_index -100 {dist.arena_offsets = array<i64: 0>} : (tensor<4x1x4xf32>, tensor<4x1xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

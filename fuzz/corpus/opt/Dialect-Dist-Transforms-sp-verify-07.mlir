
// Attention over a sequence shard needs context parallelism.
dist.mesh @mesh ["tp" = 2]
func.func @attention_on_sequence_shard(%q: tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> {
  // expected-error @+1 {{operand #0 is S(0) on mesh axis 'tp': attention over a sequence split across ranks needs context parallelism; all-gather the sequence first}}
  %o = tfm.attention %q, %q, %q heads 2 kv_heads 2 head_dim 4 {causal} : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
  return %o : tensor<2x1x8xf32, #dist.layout<@mesh, tp = S(0)>>
}


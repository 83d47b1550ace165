module attributes {tfm.model_type = "llama"} {
  dist.mesh @mesh ["tp" = 2] roles [tensor]
  tfm.param @model.embed_tokens.weight : tensor<256x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.0.self_attn.q_proj.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.self_attn.k_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.self_attn.v_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.self_attn.o_proj.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.0.mlp.gate_proj.weight : tensor<88x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.mlp.up_proj.weight : tensor<88x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.0.mlp.down_proj.weight : tensor<32x88xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.1.self_attn.q_proj.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.self_attn.k_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.self_attn.v_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.self_attn.o_proj.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.1.mlp.gate_proj.weight : tensor<88x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.mlp.up_proj.weight : tensor<88x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @model.layers.1.mlp.down_proj.weight : tensor<32x88xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @model.norm.weight : tensor<32xf32> init ones
  tfm.param @lm_head.weight : tensor<256x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  func.func @forward(%arg0: tensor<8x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<8x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
    %0 = tfm.get_param @model.embed_tokens.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %1 = tfm.embedding %arg0, %0 : (tensor<8x2xi64>, tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %2 = dist.reduce_scatter %1 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %3 = tfm.get_param @model.layers.0.input_layernorm.weight : tensor<32xf32>
    %4 = tfm.rms_norm %2, %3 eps 9.9999999999999995E-7 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %5 = dist.all_gather %4 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %6 = tfm.get_param @model.layers.0.self_attn.q_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %7 = tfm.linear %5, %6 : (tensor<8x2x32xf32>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %8 = tfm.get_param @model.layers.0.self_attn.k_proj.weight : tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %9 = tfm.linear %5, %8 : (tensor<8x2x32xf32>, tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
    %10 = tfm.get_param @model.layers.0.self_attn.v_proj.weight : tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %11 = tfm.linear %5, %10 : (tensor<8x2x32xf32>, tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
    %12 = tfm.attention %7, %9, %11 heads 2 kv_heads 1 head_dim 8 {causal, rotary_dim = 8 : i64} : tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %13 = tfm.get_param @model.layers.0.self_attn.o_proj.weight : tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>
    %14 = tfm.linear %12, %13 : (tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %15 = dist.reduce_scatter %14 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %16 = tfm.add %2, %15 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %17 = tfm.get_param @model.layers.0.post_attention_layernorm.weight : tensor<32xf32>
    %18 = tfm.rms_norm %16, %17 eps 9.9999999999999995E-7 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %19 = dist.all_gather %18 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %20 = tfm.get_param @model.layers.0.mlp.gate_proj.weight : tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %21 = tfm.linear %19, %20 : (tensor<8x2x32xf32>, tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %22 = tfm.get_param @model.layers.0.mlp.up_proj.weight : tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %23 = tfm.linear %19, %22 : (tensor<8x2x32xf32>, tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %24 = tfm.silu %21 : tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %25 = tfm.mul %24, %23 : tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %26 = tfm.get_param @model.layers.0.mlp.down_proj.weight : tensor<32x44xf32, #dist.layout<@mesh, tp = S(1)>>
    %27 = tfm.linear %25, %26 : (tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x44xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %28 = dist.reduce_scatter %27 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %29 = tfm.add %16, %28 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %30 = tfm.get_param @model.layers.1.input_layernorm.weight : tensor<32xf32>
    %31 = tfm.rms_norm %29, %30 eps 9.9999999999999995E-7 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %32 = dist.all_gather %31 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %33 = tfm.get_param @model.layers.1.self_attn.q_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %34 = tfm.linear %32, %33 : (tensor<8x2x32xf32>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %35 = tfm.get_param @model.layers.1.self_attn.k_proj.weight : tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %36 = tfm.linear %32, %35 : (tensor<8x2x32xf32>, tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
    %37 = tfm.get_param @model.layers.1.self_attn.v_proj.weight : tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %38 = tfm.linear %32, %37 : (tensor<8x2x32xf32>, tensor<8x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>>
    %39 = tfm.attention %34, %36, %38 heads 2 kv_heads 1 head_dim 8 {causal, rotary_dim = 8 : i64} : tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x8xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %40 = tfm.get_param @model.layers.1.self_attn.o_proj.weight : tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>
    %41 = tfm.linear %39, %40 : (tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %42 = dist.reduce_scatter %41 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %43 = tfm.add %29, %42 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %44 = tfm.get_param @model.layers.1.post_attention_layernorm.weight : tensor<32xf32>
    %45 = tfm.rms_norm %43, %44 eps 9.9999999999999995E-7 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %46 = dist.all_gather %45 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %47 = tfm.get_param @model.layers.1.mlp.gate_proj.weight : tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %48 = tfm.linear %46, %47 : (tensor<8x2x32xf32>, tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %49 = tfm.get_param @model.layers.1.mlp.up_proj.weight : tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %50 = tfm.linear %46, %49 : (tensor<8x2x32xf32>, tensor<44x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %51 = tfm.silu %48 : tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %52 = tfm.mul %51, %50 : tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>
    %53 = tfm.get_param @model.layers.1.mlp.down_proj.weight : tensor<32x44xf32, #dist.layout<@mesh, tp = S(1)>>
    %54 = tfm.linear %52, %53 : (tensor<8x2x44xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x44xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %55 = dist.reduce_scatter %54 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %56 = tfm.add %43, %55 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %57 = tfm.get_param @model.norm.weight : tensor<32xf32>
    %58 = tfm.rms_norm %56, %57 eps 9.9999999999999995E-7 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %59 = dist.all_gather %58 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %60 = tfm.get_param @lm_head.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %61 = tfm.linear %59, %60 : (tensor<8x2x32xf32>, tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>
    %62 = tfm.logits_max %61 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %63 = dist.all_reduce %62 on @mesh["tp"] max : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %64 = tfm.logits_sumexp %61, %63 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2xf32> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %65 = dist.all_reduce %64 on @mesh["tp"] sum : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %66 = tfm.label_logit %61, %arg1 ignore_index -100 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2xi64> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %67 = dist.all_reduce %66 on @mesh["tp"] sum : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %68 = tfm.cross_entropy_from_stats %63, %65, %67, %arg1 ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
    return %68 : tensor<f32>
  }
}


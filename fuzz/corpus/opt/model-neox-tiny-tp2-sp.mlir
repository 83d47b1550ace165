module attributes {tfm.model_type = "gpt_neox"} {
  dist.mesh @mesh ["tp" = 2] roles [tensor]
  tfm.param @gpt_neox.embed_in.weight : tensor<256x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.0.input_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.0.attention.query_key_value.weight : tensor<96x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.attention.query_key_value.bias : tensor<96xf32, #dist.layout<@mesh, tp = S(0)>> init zeros
  tfm.param @gpt_neox.layers.0.attention.dense.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.attention.dense.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.0.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.0.post_attention_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.0.mlp.dense_h_to_4h.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.mlp.dense_h_to_4h.bias : tensor<128xf32, #dist.layout<@mesh, tp = S(0)>> init zeros
  tfm.param @gpt_neox.layers.0.mlp.dense_4h_to_h.weight : tensor<32x128xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.mlp.dense_4h_to_h.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.1.input_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.attention.query_key_value.weight : tensor<96x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.attention.query_key_value.bias : tensor<96xf32, #dist.layout<@mesh, tp = S(0)>> init zeros
  tfm.param @gpt_neox.layers.1.attention.dense.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.attention.dense.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.1.post_attention_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.mlp.dense_h_to_4h.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.mlp.dense_h_to_4h.bias : tensor<128xf32, #dist.layout<@mesh, tp = S(0)>> init zeros
  tfm.param @gpt_neox.layers.1.mlp.dense_4h_to_h.weight : tensor<32x128xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.mlp.dense_4h_to_h.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.final_layer_norm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.final_layer_norm.bias : tensor<32xf32> init zeros
  tfm.param @embed_out.weight : tensor<256x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  func.func @forward(%arg0: tensor<8x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<8x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
    %0 = tfm.get_param @gpt_neox.embed_in.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %1 = tfm.embedding %arg0, %0 : (tensor<8x2xi64>, tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %2 = dist.reduce_scatter %1 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %3 = tfm.get_param @gpt_neox.layers.0.input_layernorm.weight : tensor<32xf32>
    %4 = tfm.get_param @gpt_neox.layers.0.input_layernorm.bias : tensor<32xf32>
    %5 = tfm.layer_norm %2, %3, %4 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %6 = dist.all_gather %5 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %7 = tfm.get_param @gpt_neox.layers.0.attention.query_key_value.weight : tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %8 = tfm.get_param @gpt_neox.layers.0.attention.query_key_value.bias : tensor<48xf32, #dist.layout<@mesh, tp = S(0)>>
    %9 = tfm.linear %6, %7, %8 : (tensor<8x2x32xf32>, tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<48xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2)>>
    %q, %k, %v = tfm.qkv_split %9 packing heads heads 2 kv_heads 2 head_dim 8 : tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %10 = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 8 {causal, rotary_dim = 2 : i64} : tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %11 = tfm.get_param @gpt_neox.layers.0.attention.dense.weight : tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>
    %12 = tfm.linear %10, %11 : (tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %13 = dist.reduce_scatter %12 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %14 = tfm.get_param @gpt_neox.layers.0.attention.dense.bias : tensor<32xf32>
    %15 = tfm.bias_add %13, %14 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %16 = tfm.get_param @gpt_neox.layers.0.post_attention_layernorm.weight : tensor<32xf32>
    %17 = tfm.get_param @gpt_neox.layers.0.post_attention_layernorm.bias : tensor<32xf32>
    %18 = tfm.layer_norm %2, %16, %17 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %19 = dist.all_gather %18 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %20 = tfm.get_param @gpt_neox.layers.0.mlp.dense_h_to_4h.weight : tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %21 = tfm.get_param @gpt_neox.layers.0.mlp.dense_h_to_4h.bias : tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>
    %22 = tfm.linear %19, %20, %21 : (tensor<8x2x32xf32>, tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %23 = tfm.gelu %22 approximate none : tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %24 = tfm.get_param @gpt_neox.layers.0.mlp.dense_4h_to_h.weight : tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>
    %25 = tfm.linear %23, %24 : (tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %26 = dist.reduce_scatter %25 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %27 = tfm.get_param @gpt_neox.layers.0.mlp.dense_4h_to_h.bias : tensor<32xf32>
    %28 = tfm.bias_add %26, %27 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %29 = tfm.add %28, %15 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %30 = tfm.add %29, %2 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %31 = tfm.get_param @gpt_neox.layers.1.input_layernorm.weight : tensor<32xf32>
    %32 = tfm.get_param @gpt_neox.layers.1.input_layernorm.bias : tensor<32xf32>
    %33 = tfm.layer_norm %30, %31, %32 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %34 = dist.all_gather %33 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %35 = tfm.get_param @gpt_neox.layers.1.attention.query_key_value.weight : tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %36 = tfm.get_param @gpt_neox.layers.1.attention.query_key_value.bias : tensor<48xf32, #dist.layout<@mesh, tp = S(0)>>
    %37 = tfm.linear %34, %35, %36 : (tensor<8x2x32xf32>, tensor<48x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<48xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2)>>
    %q_0, %k_1, %v_2 = tfm.qkv_split %37 packing heads heads 2 kv_heads 2 head_dim 8 : tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %38 = tfm.attention %q_0, %k_1, %v_2 heads 2 kv_heads 2 head_dim 8 {causal, rotary_dim = 2 : i64} : tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %39 = tfm.get_param @gpt_neox.layers.1.attention.dense.weight : tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>
    %40 = tfm.linear %38, %39 : (tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x16xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %41 = dist.reduce_scatter %40 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %42 = tfm.get_param @gpt_neox.layers.1.attention.dense.bias : tensor<32xf32>
    %43 = tfm.bias_add %41, %42 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %44 = tfm.get_param @gpt_neox.layers.1.post_attention_layernorm.weight : tensor<32xf32>
    %45 = tfm.get_param @gpt_neox.layers.1.post_attention_layernorm.bias : tensor<32xf32>
    %46 = tfm.layer_norm %30, %44, %45 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %47 = dist.all_gather %46 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %48 = tfm.get_param @gpt_neox.layers.1.mlp.dense_h_to_4h.weight : tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %49 = tfm.get_param @gpt_neox.layers.1.mlp.dense_h_to_4h.bias : tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>
    %50 = tfm.linear %47, %48, %49 : (tensor<8x2x32xf32>, tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %51 = tfm.gelu %50 approximate none : tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %52 = tfm.get_param @gpt_neox.layers.1.mlp.dense_4h_to_h.weight : tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>
    %53 = tfm.linear %51, %52 : (tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %54 = dist.reduce_scatter %53 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %55 = tfm.get_param @gpt_neox.layers.1.mlp.dense_4h_to_h.bias : tensor<32xf32>
    %56 = tfm.bias_add %54, %55 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %57 = tfm.add %56, %43 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %58 = tfm.add %57, %30 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %59 = tfm.get_param @gpt_neox.final_layer_norm.weight : tensor<32xf32>
    %60 = tfm.get_param @gpt_neox.final_layer_norm.bias : tensor<32xf32>
    %61 = tfm.layer_norm %58, %59, %60 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %62 = dist.all_gather %61 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %63 = tfm.get_param @embed_out.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %64 = tfm.linear %62, %63 : (tensor<8x2x32xf32>, tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>
    %65 = tfm.logits_max %64 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %66 = dist.all_reduce %65 on @mesh["tp"] max : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %67 = tfm.logits_sumexp %64, %66 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2xf32> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %68 = dist.all_reduce %67 on @mesh["tp"] sum : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %69 = tfm.label_logit %64, %arg1 ignore_index -100 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2xi64> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %70 = dist.all_reduce %69 on @mesh["tp"] sum : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %71 = tfm.cross_entropy_from_stats %66, %68, %70, %arg1 ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
    return %71 : tensor<f32>
  }
}


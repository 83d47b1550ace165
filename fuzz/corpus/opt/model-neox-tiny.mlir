module attributes {tfm.model_type = "gpt_neox"} {
  tfm.param @gpt_neox.embed_in.weight : tensor<256x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.0.input_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.0.attention.query_key_value.weight : tensor<96x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.attention.query_key_value.bias : tensor<96xf32> init zeros
  tfm.param @gpt_neox.layers.0.attention.dense.weight : tensor<32x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.attention.dense.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.0.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.0.post_attention_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.0.mlp.dense_h_to_4h.weight : tensor<128x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.mlp.dense_h_to_4h.bias : tensor<128xf32> init zeros
  tfm.param @gpt_neox.layers.0.mlp.dense_4h_to_h.weight : tensor<32x128xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.0.mlp.dense_4h_to_h.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.1.input_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.attention.query_key_value.weight : tensor<96x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.attention.query_key_value.bias : tensor<96xf32> init zeros
  tfm.param @gpt_neox.layers.1.attention.dense.weight : tensor<32x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.attention.dense.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.layers.1.post_attention_layernorm.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.layers.1.mlp.dense_h_to_4h.weight : tensor<128x32xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.mlp.dense_h_to_4h.bias : tensor<128xf32> init zeros
  tfm.param @gpt_neox.layers.1.mlp.dense_4h_to_h.weight : tensor<32x128xf32> init normal(2.000000e-02)
  tfm.param @gpt_neox.layers.1.mlp.dense_4h_to_h.bias : tensor<32xf32> init zeros
  tfm.param @gpt_neox.final_layer_norm.weight : tensor<32xf32> init ones
  tfm.param @gpt_neox.final_layer_norm.bias : tensor<32xf32> init zeros
  tfm.param @embed_out.weight : tensor<256x32xf32> init normal(2.000000e-02)
  func.func @forward(%arg0: tensor<8x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<8x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
    %0 = tfm.get_param @gpt_neox.embed_in.weight : tensor<256x32xf32>
    %1 = tfm.embedding %arg0, %0 : (tensor<8x2xi64>, tensor<256x32xf32>) -> tensor<8x2x32xf32>
    %2 = tfm.get_param @gpt_neox.layers.0.input_layernorm.weight : tensor<32xf32>
    %3 = tfm.get_param @gpt_neox.layers.0.input_layernorm.bias : tensor<32xf32>
    %4 = tfm.layer_norm %1, %2, %3 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %5 = tfm.get_param @gpt_neox.layers.0.attention.query_key_value.weight : tensor<96x32xf32>
    %6 = tfm.get_param @gpt_neox.layers.0.attention.query_key_value.bias : tensor<96xf32>
    %7 = tfm.linear %4, %5, %6 : (tensor<8x2x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<8x2x96xf32>
    %q, %k, %v = tfm.qkv_split %7 packing heads heads 4 kv_heads 4 head_dim 8 : tensor<8x2x96xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
    %8 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 {causal, rotary_dim = 2 : i64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
    %9 = tfm.get_param @gpt_neox.layers.0.attention.dense.weight : tensor<32x32xf32>
    %10 = tfm.get_param @gpt_neox.layers.0.attention.dense.bias : tensor<32xf32>
    %11 = tfm.linear %8, %9, %10 : (tensor<8x2x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %12 = tfm.get_param @gpt_neox.layers.0.post_attention_layernorm.weight : tensor<32xf32>
    %13 = tfm.get_param @gpt_neox.layers.0.post_attention_layernorm.bias : tensor<32xf32>
    %14 = tfm.layer_norm %1, %12, %13 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %15 = tfm.get_param @gpt_neox.layers.0.mlp.dense_h_to_4h.weight : tensor<128x32xf32>
    %16 = tfm.get_param @gpt_neox.layers.0.mlp.dense_h_to_4h.bias : tensor<128xf32>
    %17 = tfm.linear %14, %15, %16 : (tensor<8x2x32xf32>, tensor<128x32xf32>, tensor<128xf32>) -> tensor<8x2x128xf32>
    %18 = tfm.gelu %17 approximate none : tensor<8x2x128xf32>
    %19 = tfm.get_param @gpt_neox.layers.0.mlp.dense_4h_to_h.weight : tensor<32x128xf32>
    %20 = tfm.get_param @gpt_neox.layers.0.mlp.dense_4h_to_h.bias : tensor<32xf32>
    %21 = tfm.linear %18, %19, %20 : (tensor<8x2x128xf32>, tensor<32x128xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %22 = tfm.add %21, %11 : tensor<8x2x32xf32>
    %23 = tfm.add %22, %1 : tensor<8x2x32xf32>
    %24 = tfm.get_param @gpt_neox.layers.1.input_layernorm.weight : tensor<32xf32>
    %25 = tfm.get_param @gpt_neox.layers.1.input_layernorm.bias : tensor<32xf32>
    %26 = tfm.layer_norm %23, %24, %25 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %27 = tfm.get_param @gpt_neox.layers.1.attention.query_key_value.weight : tensor<96x32xf32>
    %28 = tfm.get_param @gpt_neox.layers.1.attention.query_key_value.bias : tensor<96xf32>
    %29 = tfm.linear %26, %27, %28 : (tensor<8x2x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<8x2x96xf32>
    %q_0, %k_1, %v_2 = tfm.qkv_split %29 packing heads heads 4 kv_heads 4 head_dim 8 : tensor<8x2x96xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
    %30 = tfm.attention %q_0, %k_1, %v_2 heads 4 kv_heads 4 head_dim 8 {causal, rotary_dim = 2 : i64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
    %31 = tfm.get_param @gpt_neox.layers.1.attention.dense.weight : tensor<32x32xf32>
    %32 = tfm.get_param @gpt_neox.layers.1.attention.dense.bias : tensor<32xf32>
    %33 = tfm.linear %30, %31, %32 : (tensor<8x2x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %34 = tfm.get_param @gpt_neox.layers.1.post_attention_layernorm.weight : tensor<32xf32>
    %35 = tfm.get_param @gpt_neox.layers.1.post_attention_layernorm.bias : tensor<32xf32>
    %36 = tfm.layer_norm %23, %34, %35 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %37 = tfm.get_param @gpt_neox.layers.1.mlp.dense_h_to_4h.weight : tensor<128x32xf32>
    %38 = tfm.get_param @gpt_neox.layers.1.mlp.dense_h_to_4h.bias : tensor<128xf32>
    %39 = tfm.linear %36, %37, %38 : (tensor<8x2x32xf32>, tensor<128x32xf32>, tensor<128xf32>) -> tensor<8x2x128xf32>
    %40 = tfm.gelu %39 approximate none : tensor<8x2x128xf32>
    %41 = tfm.get_param @gpt_neox.layers.1.mlp.dense_4h_to_h.weight : tensor<32x128xf32>
    %42 = tfm.get_param @gpt_neox.layers.1.mlp.dense_4h_to_h.bias : tensor<32xf32>
    %43 = tfm.linear %40, %41, %42 : (tensor<8x2x128xf32>, tensor<32x128xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %44 = tfm.add %43, %33 : tensor<8x2x32xf32>
    %45 = tfm.add %44, %23 : tensor<8x2x32xf32>
    %46 = tfm.get_param @gpt_neox.final_layer_norm.weight : tensor<32xf32>
    %47 = tfm.get_param @gpt_neox.final_layer_norm.bias : tensor<32xf32>
    %48 = tfm.layer_norm %45, %46, %47 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %49 = tfm.get_param @embed_out.weight : tensor<256x32xf32>
    %50 = tfm.linear %48, %49 : (tensor<8x2x32xf32>, tensor<256x32xf32>) -> tensor<8x2x256xf32>
    %51 = tfm.cross_entropy %50, %arg1 ignore_index -100 : (tensor<8x2x256xf32>, tensor<8x2xi64>) -> tensor<f32>
    return %51 : tensor<f32>
  }
}


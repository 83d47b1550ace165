module attributes {tfm.model_type = "llama"} {
  tfm.param @model.embed_tokens.weight : tensor<256x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.0.self_attn.q_proj.weight : tensor<32x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.self_attn.k_proj.weight : tensor<16x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.self_attn.v_proj.weight : tensor<16x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.self_attn.o_proj.weight : tensor<32x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.0.mlp.gate_proj.weight : tensor<88x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.mlp.up_proj.weight : tensor<88x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.0.mlp.down_proj.weight : tensor<32x88xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.input_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.1.self_attn.q_proj.weight : tensor<32x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.self_attn.k_proj.weight : tensor<16x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.self_attn.v_proj.weight : tensor<16x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.self_attn.o_proj.weight : tensor<32x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.post_attention_layernorm.weight : tensor<32xf32> init ones
  tfm.param @model.layers.1.mlp.gate_proj.weight : tensor<88x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.mlp.up_proj.weight : tensor<88x32xf32> init normal(2.000000e-02)
  tfm.param @model.layers.1.mlp.down_proj.weight : tensor<32x88xf32> init normal(2.000000e-02)
  tfm.param @model.norm.weight : tensor<32xf32> init ones
  tfm.param @lm_head.weight : tensor<256x32xf32> init normal(2.000000e-02)
  func.func @forward(%arg0: tensor<8x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<8x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
    %0 = tfm.get_param @model.embed_tokens.weight : tensor<256x32xf32>
    %1 = tfm.embedding %arg0, %0 : (tensor<8x2xi64>, tensor<256x32xf32>) -> tensor<8x2x32xf32>
    %2 = tfm.get_param @model.layers.0.input_layernorm.weight : tensor<32xf32>
    %3 = tfm.rms_norm %1, %2 eps 9.9999999999999995E-7 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %4 = tfm.get_param @model.layers.0.self_attn.q_proj.weight : tensor<32x32xf32>
    %5 = tfm.linear %3, %4 : (tensor<8x2x32xf32>, tensor<32x32xf32>) -> tensor<8x2x32xf32>
    %6 = tfm.get_param @model.layers.0.self_attn.k_proj.weight : tensor<16x32xf32>
    %7 = tfm.linear %3, %6 : (tensor<8x2x32xf32>, tensor<16x32xf32>) -> tensor<8x2x16xf32>
    %8 = tfm.get_param @model.layers.0.self_attn.v_proj.weight : tensor<16x32xf32>
    %9 = tfm.linear %3, %8 : (tensor<8x2x32xf32>, tensor<16x32xf32>) -> tensor<8x2x16xf32>
    %10 = tfm.attention %5, %7, %9 heads 4 kv_heads 2 head_dim 8 {causal, rotary_dim = 8 : i64} : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
    %11 = tfm.get_param @model.layers.0.self_attn.o_proj.weight : tensor<32x32xf32>
    %12 = tfm.linear %10, %11 : (tensor<8x2x32xf32>, tensor<32x32xf32>) -> tensor<8x2x32xf32>
    %13 = tfm.add %1, %12 : tensor<8x2x32xf32>
    %14 = tfm.get_param @model.layers.0.post_attention_layernorm.weight : tensor<32xf32>
    %15 = tfm.rms_norm %13, %14 eps 9.9999999999999995E-7 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %16 = tfm.get_param @model.layers.0.mlp.gate_proj.weight : tensor<88x32xf32>
    %17 = tfm.linear %15, %16 : (tensor<8x2x32xf32>, tensor<88x32xf32>) -> tensor<8x2x88xf32>
    %18 = tfm.get_param @model.layers.0.mlp.up_proj.weight : tensor<88x32xf32>
    %19 = tfm.linear %15, %18 : (tensor<8x2x32xf32>, tensor<88x32xf32>) -> tensor<8x2x88xf32>
    %20 = tfm.silu %17 : tensor<8x2x88xf32>
    %21 = tfm.mul %20, %19 : tensor<8x2x88xf32>
    %22 = tfm.get_param @model.layers.0.mlp.down_proj.weight : tensor<32x88xf32>
    %23 = tfm.linear %21, %22 : (tensor<8x2x88xf32>, tensor<32x88xf32>) -> tensor<8x2x32xf32>
    %24 = tfm.add %13, %23 : tensor<8x2x32xf32>
    %25 = tfm.get_param @model.layers.1.input_layernorm.weight : tensor<32xf32>
    %26 = tfm.rms_norm %24, %25 eps 9.9999999999999995E-7 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %27 = tfm.get_param @model.layers.1.self_attn.q_proj.weight : tensor<32x32xf32>
    %28 = tfm.linear %26, %27 : (tensor<8x2x32xf32>, tensor<32x32xf32>) -> tensor<8x2x32xf32>
    %29 = tfm.get_param @model.layers.1.self_attn.k_proj.weight : tensor<16x32xf32>
    %30 = tfm.linear %26, %29 : (tensor<8x2x32xf32>, tensor<16x32xf32>) -> tensor<8x2x16xf32>
    %31 = tfm.get_param @model.layers.1.self_attn.v_proj.weight : tensor<16x32xf32>
    %32 = tfm.linear %26, %31 : (tensor<8x2x32xf32>, tensor<16x32xf32>) -> tensor<8x2x16xf32>
    %33 = tfm.attention %28, %30, %32 heads 4 kv_heads 2 head_dim 8 {causal, rotary_dim = 8 : i64} : tensor<8x2x32xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<8x2x32xf32>
    %34 = tfm.get_param @model.layers.1.self_attn.o_proj.weight : tensor<32x32xf32>
    %35 = tfm.linear %33, %34 : (tensor<8x2x32xf32>, tensor<32x32xf32>) -> tensor<8x2x32xf32>
    %36 = tfm.add %24, %35 : tensor<8x2x32xf32>
    %37 = tfm.get_param @model.layers.1.post_attention_layernorm.weight : tensor<32xf32>
    %38 = tfm.rms_norm %36, %37 eps 9.9999999999999995E-7 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %39 = tfm.get_param @model.layers.1.mlp.gate_proj.weight : tensor<88x32xf32>
    %40 = tfm.linear %38, %39 : (tensor<8x2x32xf32>, tensor<88x32xf32>) -> tensor<8x2x88xf32>
    %41 = tfm.get_param @model.layers.1.mlp.up_proj.weight : tensor<88x32xf32>
    %42 = tfm.linear %38, %41 : (tensor<8x2x32xf32>, tensor<88x32xf32>) -> tensor<8x2x88xf32>
    %43 = tfm.silu %40 : tensor<8x2x88xf32>
    %44 = tfm.mul %43, %42 : tensor<8x2x88xf32>
    %45 = tfm.get_param @model.layers.1.mlp.down_proj.weight : tensor<32x88xf32>
    %46 = tfm.linear %44, %45 : (tensor<8x2x88xf32>, tensor<32x88xf32>) -> tensor<8x2x32xf32>
    %47 = tfm.add %36, %46 : tensor<8x2x32xf32>
    %48 = tfm.get_param @model.norm.weight : tensor<32xf32>
    %49 = tfm.rms_norm %47, %48 eps 9.9999999999999995E-7 : (tensor<8x2x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %50 = tfm.get_param @lm_head.weight : tensor<256x32xf32>
    %51 = tfm.linear %49, %50 : (tensor<8x2x32xf32>, tensor<256x32xf32>) -> tensor<8x2x256xf32>
    %52 = tfm.cross_entropy %51, %arg1 ignore_index -100 : (tensor<8x2x256xf32>, tensor<8x2xi64>) -> tensor<f32>
    return %52 : tensor<f32>
  }
}


module attributes {tfm.model_type = "gpt2"} {
  tfm.param @transformer.wte.weight : tensor<256x32xf32> init normal(2.000000e-02)
  tfm.param @transformer.wpe.weight : tensor<64x32xf32> init normal(2.000000e-02)
  tfm.param @transformer.h.0.ln_1.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.0.ln_1.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.0.attn.c_attn.weight : tensor<32x96xf32> init normal(2.000000e-02)
  tfm.param @transformer.h.0.attn.c_attn.bias : tensor<96xf32> init zeros
  tfm.param @transformer.h.0.attn.c_proj.weight : tensor<32x32xf32> init normal(1.000000e-02)
  tfm.param @transformer.h.0.attn.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.0.ln_2.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.0.ln_2.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.0.mlp.c_fc.weight : tensor<32x128xf32> init normal(2.000000e-02)
  tfm.param @transformer.h.0.mlp.c_fc.bias : tensor<128xf32> init zeros
  tfm.param @transformer.h.0.mlp.c_proj.weight : tensor<128x32xf32> init normal(1.000000e-02)
  tfm.param @transformer.h.0.mlp.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.ln_1.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.1.ln_1.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.attn.c_attn.weight : tensor<32x96xf32> init normal(2.000000e-02)
  tfm.param @transformer.h.1.attn.c_attn.bias : tensor<96xf32> init zeros
  tfm.param @transformer.h.1.attn.c_proj.weight : tensor<32x32xf32> init normal(1.000000e-02)
  tfm.param @transformer.h.1.attn.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.ln_2.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.1.ln_2.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.mlp.c_fc.weight : tensor<32x128xf32> init normal(2.000000e-02)
  tfm.param @transformer.h.1.mlp.c_fc.bias : tensor<128xf32> init zeros
  tfm.param @transformer.h.1.mlp.c_proj.weight : tensor<128x32xf32> init normal(1.000000e-02)
  tfm.param @transformer.h.1.mlp.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.ln_f.weight : tensor<32xf32> init ones
  tfm.param @transformer.ln_f.bias : tensor<32xf32> init zeros
  func.func @forward(%arg0: tensor<8x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<8x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
    %0 = tfm.get_param @transformer.wte.weight : tensor<256x32xf32>
    %1 = tfm.embedding %arg0, %0 : (tensor<8x2xi64>, tensor<256x32xf32>) -> tensor<8x2x32xf32>
    %2 = tfm.get_param @transformer.wpe.weight : tensor<64x32xf32>
    %3 = tfm.position_ids : tensor<8x2xi64>
    %4 = tfm.embedding %3, %2 : (tensor<8x2xi64>, tensor<64x32xf32>) -> tensor<8x2x32xf32>
    %5 = tfm.add %1, %4 : tensor<8x2x32xf32>
    %6 = tfm.dropout %5 rate 1.000000e-01 stream 0 : tensor<8x2x32xf32>
    %7 = tfm.get_param @transformer.h.0.ln_1.weight : tensor<32xf32>
    %8 = tfm.get_param @transformer.h.0.ln_1.bias : tensor<32xf32>
    %9 = tfm.layer_norm %6, %7, %8 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %10 = tfm.get_param @transformer.h.0.attn.c_attn.weight : tensor<32x96xf32>
    %11 = tfm.get_param @transformer.h.0.attn.c_attn.bias : tensor<96xf32>
    %12 = tfm.linear %9, %10, %11 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<8x2x96xf32>
    %q, %k, %v = tfm.qkv_split %12 packing blocks heads 4 kv_heads 4 head_dim 8 : tensor<8x2x96xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
    %13 = tfm.attention %q, %k, %v heads 4 kv_heads 4 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 1 : i64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
    %14 = tfm.get_param @transformer.h.0.attn.c_proj.weight : tensor<32x32xf32>
    %15 = tfm.get_param @transformer.h.0.attn.c_proj.bias : tensor<32xf32>
    %16 = tfm.linear %13, %14, %15 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %17 = tfm.dropout %16 rate 1.000000e-01 stream 2 : tensor<8x2x32xf32>
    %18 = tfm.add %6, %17 : tensor<8x2x32xf32>
    %19 = tfm.get_param @transformer.h.0.ln_2.weight : tensor<32xf32>
    %20 = tfm.get_param @transformer.h.0.ln_2.bias : tensor<32xf32>
    %21 = tfm.layer_norm %18, %19, %20 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %22 = tfm.get_param @transformer.h.0.mlp.c_fc.weight : tensor<32x128xf32>
    %23 = tfm.get_param @transformer.h.0.mlp.c_fc.bias : tensor<128xf32>
    %24 = tfm.linear %21, %22, %23 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<8x2x128xf32>
    %25 = tfm.gelu %24 approximate tanh : tensor<8x2x128xf32>
    %26 = tfm.get_param @transformer.h.0.mlp.c_proj.weight : tensor<128x32xf32>
    %27 = tfm.get_param @transformer.h.0.mlp.c_proj.bias : tensor<32xf32>
    %28 = tfm.linear %25, %26, %27 weight_layout in_out : (tensor<8x2x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %29 = tfm.dropout %28 rate 1.000000e-01 stream 3 : tensor<8x2x32xf32>
    %30 = tfm.add %18, %29 : tensor<8x2x32xf32>
    %31 = tfm.get_param @transformer.h.1.ln_1.weight : tensor<32xf32>
    %32 = tfm.get_param @transformer.h.1.ln_1.bias : tensor<32xf32>
    %33 = tfm.layer_norm %30, %31, %32 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %34 = tfm.get_param @transformer.h.1.attn.c_attn.weight : tensor<32x96xf32>
    %35 = tfm.get_param @transformer.h.1.attn.c_attn.bias : tensor<96xf32>
    %36 = tfm.linear %33, %34, %35 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<8x2x96xf32>
    %q_0, %k_1, %v_2 = tfm.qkv_split %36 packing blocks heads 4 kv_heads 4 head_dim 8 : tensor<8x2x96xf32> -> tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32>
    %37 = tfm.attention %q_0, %k_1, %v_2 heads 4 kv_heads 4 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 4 : i64} : tensor<8x2x32xf32>, tensor<8x2x32xf32>, tensor<8x2x32xf32> -> tensor<8x2x32xf32>
    %38 = tfm.get_param @transformer.h.1.attn.c_proj.weight : tensor<32x32xf32>
    %39 = tfm.get_param @transformer.h.1.attn.c_proj.bias : tensor<32xf32>
    %40 = tfm.linear %37, %38, %39 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %41 = tfm.dropout %40 rate 1.000000e-01 stream 5 : tensor<8x2x32xf32>
    %42 = tfm.add %30, %41 : tensor<8x2x32xf32>
    %43 = tfm.get_param @transformer.h.1.ln_2.weight : tensor<32xf32>
    %44 = tfm.get_param @transformer.h.1.ln_2.bias : tensor<32xf32>
    %45 = tfm.layer_norm %42, %43, %44 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %46 = tfm.get_param @transformer.h.1.mlp.c_fc.weight : tensor<32x128xf32>
    %47 = tfm.get_param @transformer.h.1.mlp.c_fc.bias : tensor<128xf32>
    %48 = tfm.linear %45, %46, %47 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<8x2x128xf32>
    %49 = tfm.gelu %48 approximate tanh : tensor<8x2x128xf32>
    %50 = tfm.get_param @transformer.h.1.mlp.c_proj.weight : tensor<128x32xf32>
    %51 = tfm.get_param @transformer.h.1.mlp.c_proj.bias : tensor<32xf32>
    %52 = tfm.linear %49, %50, %51 weight_layout in_out : (tensor<8x2x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %53 = tfm.dropout %52 rate 1.000000e-01 stream 6 : tensor<8x2x32xf32>
    %54 = tfm.add %42, %53 : tensor<8x2x32xf32>
    %55 = tfm.get_param @transformer.ln_f.weight : tensor<32xf32>
    %56 = tfm.get_param @transformer.ln_f.bias : tensor<32xf32>
    %57 = tfm.layer_norm %54, %55, %56 eps 1.000000e-05 : (tensor<8x2x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x2x32xf32>
    %58 = tfm.linear %57, %0 : (tensor<8x2x32xf32>, tensor<256x32xf32>) -> tensor<8x2x256xf32>
    %59 = tfm.cross_entropy %58, %arg1 ignore_index -100 : (tensor<8x2x256xf32>, tensor<8x2xi64>) -> tensor<f32>
    return %59 : tensor<f32>
  }
}


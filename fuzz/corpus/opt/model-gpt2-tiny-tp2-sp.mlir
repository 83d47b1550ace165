module attributes {tfm.model_type = "gpt2"} {
  dist.mesh @mesh ["tp" = 2] roles [tensor]
  tfm.param @transformer.wte.weight : tensor<256x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(2.000000e-02)
  tfm.param @transformer.wpe.weight : tensor<64x32xf32> init normal(2.000000e-02)
  tfm.param @transformer.h.0.ln_1.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.0.ln_1.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.0.attn.c_attn.weight : tensor<32x96xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>> init normal(2.000000e-02)
  tfm.param @transformer.h.0.attn.c_attn.bias : tensor<96xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>> init zeros
  tfm.param @transformer.h.0.attn.c_proj.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(1.000000e-02)
  tfm.param @transformer.h.0.attn.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.0.ln_2.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.0.ln_2.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.0.mlp.c_fc.weight : tensor<32x128xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @transformer.h.0.mlp.c_fc.bias : tensor<128xf32, #dist.layout<@mesh, tp = S(0)>> init zeros
  tfm.param @transformer.h.0.mlp.c_proj.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(1.000000e-02)
  tfm.param @transformer.h.0.mlp.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.ln_1.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.1.ln_1.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.attn.c_attn.weight : tensor<32x96xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>> init normal(2.000000e-02)
  tfm.param @transformer.h.1.attn.c_attn.bias : tensor<96xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>> init zeros
  tfm.param @transformer.h.1.attn.c_proj.weight : tensor<32x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(1.000000e-02)
  tfm.param @transformer.h.1.attn.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.ln_2.weight : tensor<32xf32> init ones
  tfm.param @transformer.h.1.ln_2.bias : tensor<32xf32> init zeros
  tfm.param @transformer.h.1.mlp.c_fc.weight : tensor<32x128xf32, #dist.layout<@mesh, tp = S(1)>> init normal(2.000000e-02)
  tfm.param @transformer.h.1.mlp.c_fc.bias : tensor<128xf32, #dist.layout<@mesh, tp = S(0)>> init zeros
  tfm.param @transformer.h.1.mlp.c_proj.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>> init normal(1.000000e-02)
  tfm.param @transformer.h.1.mlp.c_proj.bias : tensor<32xf32> init zeros
  tfm.param @transformer.ln_f.weight : tensor<32xf32> init ones
  tfm.param @transformer.ln_f.bias : tensor<32xf32> init zeros
  func.func @forward(%arg0: tensor<8x2xi64> {tfm.name = "input_ids"}, %arg1: tensor<8x2xi64> {tfm.name = "labels"}) -> tensor<f32> attributes {tfm.forward} {
    %0 = tfm.get_param @transformer.wte.weight : tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %1 = tfm.embedding %arg0, %0 : (tensor<8x2xi64>, tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %2 = dist.reduce_scatter %1 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %3 = tfm.position_ids : tensor<4x2xi64, #dist.layout<@mesh, tp = S(0)>>
    %4 = tfm.get_param @transformer.wpe.weight : tensor<64x32xf32>
    %5 = tfm.embedding %3, %4 : (tensor<4x2xi64, #dist.layout<@mesh, tp = S(0)>>, tensor<64x32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %6 = tfm.add %2, %5 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %7 = tfm.dropout %6 rate 1.000000e-01 stream 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %8 = tfm.get_param @transformer.h.0.ln_1.weight : tensor<32xf32>
    %9 = tfm.get_param @transformer.h.0.ln_1.bias : tensor<32xf32>
    %10 = tfm.layer_norm %7, %8, %9 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %11 = dist.all_gather %10 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %12 = tfm.get_param @transformer.h.0.attn.c_attn.weight : tensor<32x48xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>
    %13 = tfm.get_param @transformer.h.0.attn.c_attn.bias : tensor<48xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>
    %14 = tfm.linear %11, %12, %13 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x48xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>, tensor<48xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>) -> tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
    %q, %k, %v = tfm.qkv_split %14 packing blocks heads 2 kv_heads 2 head_dim 8 : tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %15 = tfm.attention %q, %k, %v heads 2 kv_heads 2 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 1 : i64} : tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %16 = tfm.get_param @transformer.h.0.attn.c_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %17 = tfm.linear %15, %16 weight_layout in_out : (tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %18 = dist.reduce_scatter %17 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %19 = tfm.get_param @transformer.h.0.attn.c_proj.bias : tensor<32xf32>
    %20 = tfm.bias_add %18, %19 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %21 = tfm.dropout %20 rate 1.000000e-01 stream 2 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %22 = tfm.add %7, %21 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %23 = tfm.get_param @transformer.h.0.ln_2.weight : tensor<32xf32>
    %24 = tfm.get_param @transformer.h.0.ln_2.bias : tensor<32xf32>
    %25 = tfm.layer_norm %22, %23, %24 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %26 = dist.all_gather %25 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %27 = tfm.get_param @transformer.h.0.mlp.c_fc.weight : tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>
    %28 = tfm.get_param @transformer.h.0.mlp.c_fc.bias : tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>
    %29 = tfm.linear %26, %27, %28 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %30 = tfm.gelu %29 approximate tanh : tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %31 = tfm.get_param @transformer.h.0.mlp.c_proj.weight : tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %32 = tfm.linear %30, %31 weight_layout in_out : (tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %33 = dist.reduce_scatter %32 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %34 = tfm.get_param @transformer.h.0.mlp.c_proj.bias : tensor<32xf32>
    %35 = tfm.bias_add %33, %34 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %36 = tfm.dropout %35 rate 1.000000e-01 stream 3 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %37 = tfm.add %22, %36 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %38 = tfm.get_param @transformer.h.1.ln_1.weight : tensor<32xf32>
    %39 = tfm.get_param @transformer.h.1.ln_1.bias : tensor<32xf32>
    %40 = tfm.layer_norm %37, %38, %39 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %41 = dist.all_gather %40 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %42 = tfm.get_param @transformer.h.1.attn.c_attn.weight : tensor<32x48xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>
    %43 = tfm.get_param @transformer.h.1.attn.c_attn.bias : tensor<48xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>
    %44 = tfm.linear %41, %42, %43 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x48xf32, #dist.layout<@mesh, tp = S(1, blocks = 3)>>, tensor<48xf32, #dist.layout<@mesh, tp = S(0, blocks = 3)>>) -> tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>>
    %q_0, %k_1, %v_2 = tfm.qkv_split %44 packing blocks heads 2 kv_heads 2 head_dim 8 : tensor<8x2x48xf32, #dist.layout<@mesh, tp = S(2, blocks = 3)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %45 = tfm.attention %q_0, %k_1, %v_2 heads 2 kv_heads 2 head_dim 8 {causal, dropout_rate = 1.000000e-01 : f64, dropout_stream = 4 : i64} : tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>
    %46 = tfm.get_param @transformer.h.1.attn.c_proj.weight : tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %47 = tfm.linear %45, %46 weight_layout in_out : (tensor<8x2x16xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<16x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %48 = dist.reduce_scatter %47 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %49 = tfm.get_param @transformer.h.1.attn.c_proj.bias : tensor<32xf32>
    %50 = tfm.bias_add %48, %49 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %51 = tfm.dropout %50 rate 1.000000e-01 stream 5 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %52 = tfm.add %37, %51 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %53 = tfm.get_param @transformer.h.1.ln_2.weight : tensor<32xf32>
    %54 = tfm.get_param @transformer.h.1.ln_2.bias : tensor<32xf32>
    %55 = tfm.layer_norm %52, %53, %54 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %56 = dist.all_gather %55 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %57 = tfm.get_param @transformer.h.1.mlp.c_fc.weight : tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>
    %58 = tfm.get_param @transformer.h.1.mlp.c_fc.bias : tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>
    %59 = tfm.linear %56, %57, %58 weight_layout in_out : (tensor<8x2x32xf32>, tensor<32x64xf32, #dist.layout<@mesh, tp = S(1)>>, tensor<64xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %60 = tfm.gelu %59 approximate tanh : tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>
    %61 = tfm.get_param @transformer.h.1.mlp.c_proj.weight : tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %62 = tfm.linear %60, %61 weight_layout in_out : (tensor<8x2x64xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<64x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>>
    %63 = dist.reduce_scatter %62 on @mesh["tp"] dim 0 : tensor<8x2x32xf32, #dist.layout<@mesh, tp = P>> -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %64 = tfm.get_param @transformer.h.1.mlp.c_proj.bias : tensor<32xf32>
    %65 = tfm.bias_add %63, %64 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>
    %66 = tfm.dropout %65 rate 1.000000e-01 stream 6 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %67 = tfm.add %52, %66 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %68 = tfm.get_param @transformer.ln_f.weight : tensor<32xf32>
    %69 = tfm.get_param @transformer.ln_f.bias : tensor<32xf32>
    %70 = tfm.layer_norm %67, %68, %69 eps 1.000000e-05 : (tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>>
    %71 = dist.all_gather %70 on @mesh["tp"] dim 0 : tensor<4x2x32xf32, #dist.layout<@mesh, tp = S(0)>> -> tensor<8x2x32xf32>
    %72 = tfm.linear %71, %0 : (tensor<8x2x32xf32>, tensor<128x32xf32, #dist.layout<@mesh, tp = S(0)>>) -> tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>
    %73 = tfm.logits_max %72 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %74 = dist.all_reduce %73 on @mesh["tp"] max : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %75 = tfm.logits_sumexp %72, %74 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2xf32> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %76 = dist.all_reduce %75 on @mesh["tp"] sum : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %77 = tfm.label_logit %72, %arg1 ignore_index -100 : tensor<8x2x128xf32, #dist.layout<@mesh, tp = S(2)>>, tensor<8x2xi64> -> tensor<8x2xf32, #dist.layout<@mesh, tp = P>>
    %78 = dist.all_reduce %77 on @mesh["tp"] sum : tensor<8x2xf32, #dist.layout<@mesh, tp = P>> -> tensor<8x2xf32>
    %79 = tfm.cross_entropy_from_stats %74, %76, %78, %arg1 ignore_index -100 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64> -> tensor<f32>
    return %79 : tensor<f32>
  }
}


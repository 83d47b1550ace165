"""This rank's parameter shards under Megatron tensor parallelism, computed
from a Hugging Face config.json (independently of the compiler): element
counts, one per parameter, for model_type gpt2, gpt_neox and llama.

- the token embedding and an untied LM head are vocabulary-parallel (rows
  split over tp); a tied head is the embedding itself;
- column-parallel GEMMs (GPT-2 c_attn and c_fc, NeoX query_key_value and
  dense_h_to_4h, Llama q/k/v, gate and up projections) split their output
  features and their bias; Llama's k and v projections are replicated when
  tp does not divide the kv heads;
- row-parallel GEMMs (c_proj, dense, dense_4h_to_h, o_proj, down_proj)
  split their input features; their bias is replicated;
- norms and GPT-2's position embedding are replicated.
"""


def local_params(config, tp):
    kind = config["model_type"]
    if kind == "gpt2":
        V, H = config["vocab_size"], config["n_embd"]
        P, L = config["n_positions"], config["n_layer"]
        I = config.get("n_inner") or 4 * H
        sizes = [V // tp * H, P * H]
        for _ in range(L):
            sizes += [H, H,                          # ln_1
                      H * 3 * H // tp, 3 * H // tp,  # c_attn (column)
                      H // tp * H, H,                # attn.c_proj (row)
                      H, H,                          # ln_2
                      H * I // tp, I // tp,          # c_fc (column)
                      I // tp * H, H]                # mlp.c_proj (row)
        return sizes + [H, H]                        # ln_f (lm_head tied)
    if kind == "gpt_neox":
        V, H = config["vocab_size"], config["hidden_size"]
        L, I = config["num_hidden_layers"], config["intermediate_size"]
        sizes = [V // tp * H]                        # embed_in
        for _ in range(L):
            sizes += [H, H, H, H,                    # two layer norms
                      3 * H // tp * H, 3 * H // tp,  # query_key_value
                      H * H // tp, H,                # attention.dense
                      I // tp * H, I // tp,          # dense_h_to_4h
                      H * I // tp, H]                # dense_4h_to_h
        sizes += [H, H]                              # final_layer_norm
        if not config.get("tie_word_embeddings", False):
            sizes.append(V // tp * H)                # embed_out
        return sizes
    if kind == "llama":
        V, H = config["vocab_size"], config["hidden_size"]
        L, I = config["num_hidden_layers"], config["intermediate_size"]
        heads = config["num_attention_heads"]
        kv = config.get("num_key_value_heads") or heads
        d = H // heads
        assert not config.get("attention_bias", False)
        kv_local = kv // tp if kv % tp == 0 else kv
        sizes = [V // tp * H]                        # embed_tokens
        for _ in range(L):
            sizes += [H,                             # input_layernorm
                      H // tp * H,                   # q_proj
                      kv_local * d * H,              # k_proj
                      kv_local * d * H,              # v_proj
                      H * H // tp,                   # o_proj
                      H,                             # post_attention_layernorm
                      I // tp * H, I // tp * H,      # gate_proj, up_proj
                      H * I // tp]                   # down_proj
        sizes.append(H)                              # norm
        if not config.get("tie_word_embeddings", False):
            sizes.append(V // tp * H)                # lm_head
        return sizes
    raise ValueError(f"model_type {kind!r}: not gpt2, gpt_neox or llama")

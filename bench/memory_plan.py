"""Formats bench/memory-plan.sh's reports (sp-report=memory JSON) as two
tables: one rank's planned device memory by category and policy, and the
activation accounting per layer against Korthikanti et al. 2022's formula.

The formula per layer, s sequence, b batch, h hidden, a heads, t tensor
parallel (with sequence parallelism; at t = 1 it is eq. 2 too), 2-byte
activations and 1-byte dropout masks:
    none       s*b*h/t * (34 + 5*a*s/h)
    selective  34 * s*b*h/t
    full       2 * s*b*h/t
times the number of layers. It is the paper's GPT layer (4h MLP, no GQA):
for Llama (SwiGLU, 8 kv heads) the report's own column differs from it.
"""
import argparse
import json

GB = 1e9
GIB = 1 << 30


def config_dims(cfg):
    if cfg["model_type"] == "gpt2":
        return cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    return (cfg["hidden_size"], cfg["num_attention_heads"],
            cfg["num_hidden_layers"])


def formula(policy, s, b, h, a, t):
    per = {"none": s * b * h * (34 * h + 5 * a * s) / (h * t),
           "selective": 34 * s * b * h / t,
           "full": 2 * s * b * h / t}[policy]
    return per


def gb(x):
    return f"{x / GB:9.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--row", nargs=8, action="append", required=True,
                    metavar=("NAME", "POLICY", "CONFIG", "SEQ", "BATCH", "TP",
                             "REPORT", "SECONDS"))
    args = ap.parse_args()
    rows = []
    for name, policy, config, seq, batch, tp, path, secs in args.row:
        report = json.load(open(path))
        rows.append((name, policy, json.load(open(config)), int(seq),
                     int(batch), int(tp), report, float(secs)))

    print("Planned device memory per rank, GB (1e9 bytes), bf16, AdamW; "
          "'act@peak'/'grad@peak' split the arena bytes live at the step's "
          "peak op, 'act peak' is the forward values' own peak")
    head = ("model", "policy", "params", "optim", "grad@peak", "act@peak",
            "act peak", "worksp", "tokens", "arena", "total", "80GB?",
            "xFLOPs", "secs")
    print(("{:<11} {:<9}" + " {:>9}" * 10 + " {:>7} {:>5}").format(*head))
    for name, policy, cfg, s, b, t, r, secs in rows:
        m = r["per_rank_peak_bytes"]
        fits = "yes" if m["total"] <= 80 * GB else "no"
        print(f"{name:<11} {policy:<9} {gb(m['parameters'])} "
              f"{gb(m['optimizer_state'])} {gb(m['gradients'])} "
              f"{gb(m['activations'])} {gb(m['activations_peak_bytes'])} "
              f"{gb(m['workspaces'])} {gb(m['tokens'])} "
              f"{gb(m['arena_bytes'])} {gb(m['total'])} {fits:>9} "
              f"{r['extra_flops_fraction']:7.3f} {secs:5.2f}")

    print()
    print("Activations kept for the backward, all layers, GB: the report's "
          "paper column under the policy (sum over layers) against the "
          "paper's formula per layer x layers, and what the compiled step "
          "keeps (the report's kept_bytes: seqpar's backward regenerates the "
          "softmax and the masks)")
    head = ("model", "policy", "layers", "report", "formula", "rep/form",
            "per layer", "formula/L", "kept")
    print("{:<11} {:<9} {:>6} {:>9} {:>9} {:>8} {:>13} {:>13} {:>9}".format(
        *head))
    for name, policy, cfg, s, b, t, r, secs in rows:
        h, a, L = config_dims(cfg)
        layers = r["layers"]
        paper = sum(l["paper_bytes_recompute"] for l in layers)
        ir = sum(l["kept_bytes"] for l in layers)
        per = formula(r["paper_recompute"], s, b, h, a, t)
        first = layers[0]["paper_bytes_recompute"] if layers else 0
        print(f"{name:<11} {r['paper_recompute']:<9} {len(layers):>6} "
              f"{gb(paper)} {gb(per * L)} {paper / (per * L):8.3f} "
              f"{first:>13,} {int(per):>13,} {gb(ir)}")


if __name__ == "__main__":
    main()

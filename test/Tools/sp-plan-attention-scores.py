"""Checks sp-plan's materialized attention scores against the config.

Usage: sp-plan-attention-scores.py FUSED.json MATERIALIZED.json CONFIG SEQ
BATCH CLUSTER

The two JSON files are sp-plan --json outputs for the same model, one with
the default (fused) attention scores, one calibrated with "attention_scores":
"materialized". For every single-stage layout ranked in both, the compute
seconds differ by the score bytes counted here from the config alone,
over the cluster's memory bandwidth x 0.8 (sp-plan's default memory
fraction): every layer's attention moves each of its b/dp x heads/tp x
seq^2/cp scores through the forward (13 bytes in bf16 with dropout:
2 + 2 x 2 + 2 + 2 x 2 + 1), the backward (30: the forward's again less P V's
read, 11, then dP 2 + P 2 + the softmax's gradient 6 + dS twice 4 + the
dropout's gradient 5) and, under full recompute, the
forward again (selective recompute leaves the attention alone); under cp
(both attentions) in f32 (25 and 58).
"""
import json
import sys

fused, materialized, config, seq, batch, cluster = sys.argv[1:7]
seq, batch = int(seq), int(batch)
config = json.load(open(config))
bandwidth = json.load(open(cluster))["hbm_bytes_per_second"] * 0.8
layers, heads = config["n_layer"], config["n_head"]
dropout = config["attn_pdrop"] > 0
rows = {}
for path in (fused, materialized):
    plan = json.load(open(path))
    rows[path] = {r["layout"]: r for r in plan["ranked"]}
compared = 0
for name, f in rows[fused].items():
    m = rows[materialized].get(name)
    if m is None or f["pp"] != 1:
        continue
    # bf16; under cp the attention attends on f32 copies (sp-legalize-
    # precision keeps it in f32 there).
    e = 4 if f["cp"] > 1 else 2
    forward = 4 * e + (2 * e + 1 if dropout else 0)
    backward = 10 * e + 2 * (2 * e + 1 if dropout else 0)
    per_score = forward + backward + (forward if f["recompute"] == "full" else 0)
    scores = (batch // f["dp"]) * (heads // f["tp"]) * seq * seq // f["cp"]
    want = layers * scores * per_score / bandwidth
    got = m["compute_seconds"] - f["compute_seconds"]
    status = "equal" if abs(got - want) <= 1e-9 * max(1.0, abs(want)) else "DIFFER"
    print("%s: %s: %.9g s of score traffic (counted %.9g)" % (status, name, got, want))
    compared += 1
print("compared %d layouts" % compared)

"""Replays the point-to-point traffic and collectives of a traced step
(--trace, one JSON file per rank) under the rules of the NCCL communicator
(runtime/comm/NcclComm.cpp), which no GPU has run:

- a send or recv is not issued when started: it waits in its axis's queue;
  the queue is issued as one group (ncclGroupStart / End) by a flush
  (sprt_flush_sends), by a recv (which waits for its data), by the axis's
  next collective (in a group of its own, before it) and at the end of the
  step (sprt_complete_sends);
- every group and collective of a rank runs in issue order on one
  communication stream: a group ends when each of its operations met the
  peer's matching one (the k-th send from a to b meets b's k-th recv from a)
  in the group running on the peer's stream; a collective ends when every
  rank of the axis is running it.

It fails (exit 1) when the streams deadlock, naming what each blocked rank
runs, when the ranks of an axis run different collectives at one turn, or
when a send was issued after more than --max-delay compute ops of
its rank started after it (the op spans between the send and its issue: a
send held for a later recv waits for them on the GPU). Ring attention's
exchanges (inside its span) count as one collective of the axis.

Usage: nccl_p2p_model.py [--max-delay N] TRACE.rank0.json TRACE.rank1.json ...
"""

import json
import sys

args = sys.argv[1:]
max_delay = None
if args[:1] == ["--max-delay"]:
    max_delay = int(args[1])
    args = args[2:]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def load(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    meta = next(e for e in events if e.get("name") == "process_name")
    steps = [e for e in events if e.get("cat") == "step"]
    if not steps:
        fail(f"{path}: no step span")
    return meta["pid"], meta["args"]["mesh"], steps[0], events


def step_events(step, events):
    """Comm events and compute ops of one step, in the order they began."""
    lo, hi = step["ts"], step["ts"] + step["dur"]
    spans = [e for e in events if e.get("ph") == "X"
             and e.get("cat") in ("op", "collective") and lo <= e["ts"] <= hi]
    out = []
    open_spans = []  # (end, is_collective) of the spans enclosing this one
    for i, e in enumerate(spans):
        end = e["ts"] + e["dur"]
        while open_spans and open_spans[-1][0] <= e["ts"]:
            open_spans.pop()
        inside_collective = any(c for _, c in open_spans)
        if e["cat"] == "collective" and not inside_collective:
            a = e["args"]
            if e["name"] in ("send", "recv"):
                out.append((e["name"], a["axis"], a["peer"]))
            elif e["name"] == "flush_sends":
                out.append(("flush", a["axis"], None))
            elif e["name"] != "wait":  # a wait makes the compute stream wait
                out.append(("coll", a["axis"], e["name"]))
        elif e["cat"] == "op":
            # An op is compute unless a collective span lies within it (its
            # children follow it in the file).
            j, has_coll = i + 1, False
            while j < len(spans) and spans[j]["ts"] <= end and not has_coll:
                has_coll = spans[j]["cat"] == "collective"
                j += 1
            if not has_coll:
                out.append(("compute", None, None))
        open_spans.append((end, e["cat"] == "collective"))
    return out


ranks = {}
for path in args:
    pid, mesh, step, events = load(path)
    ranks[pid] = (mesh, step_events(step, events))
by_coords = {tuple(sorted(m.items())): r for r, (m, _) in ranks.items()}
if len(by_coords) != len(ranks):
    fail("two ranks have the same mesh coordinates")


def peer_rank(r, axis, coord):
    mesh = dict(ranks[r][0])
    mesh[axis] = coord
    return by_coords[tuple(sorted(mesh.items()))]


def group_key(r, axis):
    return axis, tuple(sorted((k, v) for k, v in ranks[r][0].items()
                              if k != axis))


# Each rank's communication stream under the queueing rules.
streams, worst = {}, (0, None)
for r, (_, evs) in ranks.items():
    stream, queues, computes = [], {}, 0
    sends, recvs, colls = {}, {}, {}

    def issue(axis):
        global worst
        ops = queues.pop(axis, [])
        if not ops:
            return
        for op in ops:
            if op["kind"] == "send" and computes - op["at"] > worst[0]:
                worst = (computes - op["at"],
                         f"rank {r}'s send #{op['key'][3]} to rank "
                         f"{op['key'][2]} on {axis}")
        stream.append(("p2p", ops))

    for kind, axis, arg in evs:
        if kind == "compute":
            computes += 1
        elif kind in ("send", "recv"):
            p = peer_rank(r, axis, arg)
            count = sends if kind == "send" else recvs
            k = count.get((axis, p), 0)
            count[(axis, p)] = k + 1
            key = (axis, r, p, k) if kind == "send" else (axis, p, r, k)
            queues.setdefault(axis, []).append(
                {"kind": kind, "key": key, "peer": p, "at": computes})
            if kind == "recv":
                issue(axis)
        elif kind == "flush":
            issue(axis)
        else:
            issue(axis)
            g = group_key(r, axis)
            k = colls.get(g, 0)
            colls[g] = k + 1
            stream.append(("coll", (g, k, arg)))
    for axis in list(queues):
        issue(axis)
    streams[r] = stream

# Run the streams.
done = set()  # (key, kind) of operations that met their peer's
heads = {r: 0 for r in streams}


def head(r):
    return streams[r][heads[r]] if heads[r] < len(streams[r]) else None


progress = True
while progress:
    progress = False
    for r in streams:
        h = head(r)
        if h is None:
            continue
        if h[0] == "p2p":
            for op in h[1]:
                other = "recv" if op["kind"] == "send" else "send"
                ph = head(op["peer"])
                if ph and ph[0] == "p2p" and any(
                        o["kind"] == other and o["key"] == op["key"]
                        for o in ph[1]):
                    done.add((op["key"], "send"))
                    done.add((op["key"], "recv"))
            if all((op["key"], op["kind"]) in done for op in h[1]):
                heads[r] += 1
                progress = True
        else:
            g, k, name = h[1]
            members = [q for q in streams if group_key(q, g[0]) == g]
            if all(head(q) and head(q)[0] == "coll" and head(q)[1][:2] == (g, k)
                   for q in members):
                for q in members:
                    if head(q)[1][2] != name:
                        fail(f"rank {q} runs {head(q)[1][2]} where rank {r} "
                             f"runs {name} on {g[0]}")
                for q in members:
                    heads[q] += 1
                progress = True

blocked = [r for r in streams if head(r) is not None]
if blocked:
    for r in blocked:
        h = head(r)
        what = (", ".join(f"{o['kind']} #{o['key'][3]} "
                          f"{'to' if o['kind'] == 'send' else 'from'} rank "
                          f"{o['peer']} on {o['key'][0]}" for o in h[1])
                if h[0] == "p2p" else f"{h[1][2]} on {h[1][0][0]}")
        print(f"rank {r} blocked at item {heads[r]} of {len(streams[r])}: "
              f"{what}")
    fail("the communication streams deadlock")
groups = sum(1 for s in streams.values() for i in s if i[0] == "p2p")
colls = sum(1 for s in streams.values() for i in s if i[0] == "coll")
print(f"nccl model: {len(streams)} ranks, {groups} point-to-point groups, "
      f"{colls} collectives: no deadlock")
print(f"longest a send waited to be issued: {worst[0]} compute ops"
      + (f" ({worst[1]})" if worst[1] else ""))
if max_delay is not None and worst[0] > max_delay:
    fail(f"a send waited {worst[0]} compute ops to be issued, over "
         f"{max_delay}")
print("OK")

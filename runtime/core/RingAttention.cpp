//===- RingAttention.cpp - attention over a zigzag sequence, K/V in a ring ===//
//
// sprt_op_ring_attention(_grad): context parallelism's ring variant. Every
// rank of the context axis (size n, coordinate r) holds its zigzag part of
// q, k, v and positions (chunks r and 2n - 1 - r of the 2n chunks of the
// sequence). K/V blocks travel around the ring: at step t = 0 .. n - 1 the
// rank holds owner (r - t) mod n's block, posts the receive of the next one
// from r - 1 and the send of this one to r + 1 (Comm::startRecv /
// startSend: MPI_Irecv / MPI_Isend on MPI), then computes its queries
// against this block (one kernel call per pair of a query run and a key
// run, a pair wholly above the causal diagonal skipped) and merges it into
// out by log-sum-exp (sprt_attention_block_f32), then waits for the
// transfer: the next block moves while this one is computed. The forward
// writes lse [S, B, heads] for the backward.
//
// The backward passes K/V around the ring the same way and, after each
// step's compute, the dK/dV accumulator of the block just used: at step t
// the rank adds its queries' contribution to owner (r - t)'s accumulator
// (sprt_attention_block_grad_f32, probabilities from the forward's lse),
// sends it to r + 1 and receives owner (r - t - 1)'s from r - 1; after n
// steps (n sends) each rank holds its own block's whole dK/dV. dQ stays
// local. The dK/dV exchange waits before the next step (it is not
// overlapped).
//
// Bytes each rank sends per call (counted on the axis; |kv| = the bytes of
// this rank's k, |pos| of its positions when given): forward
// (n - 1) (2 |kv| + |pos|); backward that plus n 2 |kv| for dK/dV.
//
// The ring's buffers (two sets of K, V, positions; two dK/dV accumulators in
// the backward) are the runtime's scratch, one allocation kept from call to
// call and grown when a call needs more (a step captured as a CUDA graph
// replays the pointers it recorded; a capture that would grow it is
// refused). The accumulators are zeroed by a kernel, which a capture
// records.
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "Failure.h"
#include "Memory.h"
#include "Mesh.h"
#include "MicroBatch.h"
#include "SeqSplit.h"
#include "Trace.h"

#include "sprt/device.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

using namespace sprt;

namespace {

/// The ring's buffers: one allocation kept from call to call, since a step
/// captured as a graph replays the pointers it recorded, and grown when a
/// call needs more. One outgrown stays allocated (a captured step may still
/// read it) until sprt_mesh_finalize.
struct RingScratch {
  void *data = nullptr;
  int64_t bytes = 0;
  std::vector<void *> outgrown;
};

RingScratch &ringScratch() {
  static RingScratch s;
  return s;
}

/// At least `bytes` bytes of the ring's buffers.
char *ringBuffers(int64_t bytes, const char *what) {
  RingScratch &s = ringScratch();
  if (bytes > s.bytes) {
    refuseCapture(std::string(what) +
                  "'s buffers grew while the step was captured");
    if (s.data)
      s.outgrown.push_back(s.data);
    s.data = allocate(bytes, MemoryCategory::Scratch);
    if (!s.data)
      fatal("cannot allocate " + std::to_string(bytes) + " bytes of " +
            sprt_backend_name() + " memory for ring attention");
    s.bytes = bytes;
  }
  return static_cast<char *>(s.data);
}

/// Zeroes n floats of device memory (a kernel: a captured step records it).
void zero(float *dst, int64_t n) {
  if (n > 0)
    sprt_fill_f32(dst, n, 0.0);
}

/// One block travelling around the ring: K, V (and positions).
struct Block {
  const float *k = nullptr, *v = nullptr;
  const int64_t *positions = nullptr;
};

/// The shape of a call and its context axis.
struct Ring {
  int64_t S, B, heads, kvHeads, headDim;
  int32_t causal, axis;

  int64_t n() const { return sprt_axis_size(axis); }
  int64_t r() const { return sprt_axis_coord(axis); }
  int64_t qRow() const { return B * heads * headDim; }
  int64_t kRow() const { return B * kvHeads * headDim; }
  int64_t kvBytes() const { return S * kRow() * int64_t(sizeof(float)); }
  int64_t posBytes() const { return S * B * int64_t(sizeof(int64_t)); }

  /// This rank's query runs and the runs of `owner`'s block.
  SeqPieces queries() const { return seqPieces(S, n(), r(), 1, 0); }
  SeqPieces keys(int64_t owner) const { return seqPieces(S, n(), owner, 1, 0); }

  /// Whether the pair (query run, key run) can have a visible key.
  bool needed(const SeqPiece &qp, const SeqPiece &kp) const {
    return !causal || kp.globalStart <= qp.globalStart + qp.rows - 1;
  }
};

/// Where the two sets of ring buffers sit in one scratch allocation.
struct RingBuffers {
  std::array<float *, 2> k{}, v{};
  std::array<int64_t *, 2> pos{};

  RingBuffers(const Ring &ring, char *base) {
    for (size_t i = 0; i < 2; ++i) {
      k[i] = reinterpret_cast<float *>(base);
      base += ring.kvBytes();
      v[i] = reinterpret_cast<float *>(base);
      base += ring.kvBytes();
      pos[i] = reinterpret_cast<int64_t *>(base);
      base += ring.posBytes();
    }
  }
  static int64_t bytes(const Ring &ring) {
    return 2 * (2 * ring.kvBytes() + ring.posBytes());
  }
};

/// Sends `blk` to the next rank and receives the previous rank's block into
/// set `into` of `bufs`; the caller waits.
std::vector<CommHandle> exchange(const Ring &ring, const Block &blk,
                                 const RingBuffers &bufs, size_t into) {
  Comm &comm = mesh().comm(ring.axis);
  const int n = int(ring.n()), r = int(ring.r());
  const int next = (r + 1) % n, prev = (r - 1 + n) % n;
  std::vector<CommHandle> reqs;
  reqs.push_back(comm.startRecv(bufs.k[into], ring.kvBytes(), prev));
  reqs.push_back(comm.startRecv(bufs.v[into], ring.kvBytes(), prev));
  if (blk.positions)
    reqs.push_back(comm.startRecv(bufs.pos[into], ring.posBytes(), prev));
  reqs.push_back(comm.startSend(blk.k, ring.kvBytes(), next));
  reqs.push_back(comm.startSend(blk.v, ring.kvBytes(), next));
  if (blk.positions)
    reqs.push_back(comm.startSend(blk.positions, ring.posBytes(), next));
  // Moving while this block is computed.
  comm.flush();
  countBytes(ring.axis,
             2 * ring.kvBytes() + (blk.positions ? ring.posBytes() : 0));
  return reqs;
}

void waitAll(std::vector<CommHandle> &reqs) {
  for (CommHandle &h : reqs)
    h->wait();
  reqs.clear();
}

/// The bytes of the two K/V/positions sets that travel (none on one rank).
int64_t travellingBytes(const Ring &ring) {
  return ring.n() > 1 ? RingBuffers::bytes(ring) : 0;
}

/// The bytes of the ring's buffers a call needs: the backward's in both
/// directions (the travelling sets, then two dK/dV accumulators), so that
/// the backward does not grow what the forward sized.
int64_t ringBytes(const Ring &ring) {
  return travellingBytes(ring) + 4 * ring.kvBytes();
}

Ring checkedRing(const char *what, const sprt_attention_args &a) {
  if (a.seq_axis < 0)
    fatal(std::string(what) + ": no context axis");
  if (a.S % 2 != 0)
    fatal(std::string(what) + ": a zigzag part of " + std::to_string(a.S) +
          " rows does not hold two equal chunks");
  return Ring{a.S, a.B, a.heads, a.kv_heads, a.head_dim, a.causal, a.seq_axis};
}

} // namespace

extern "C" void sprt_op_ring_attention(const float *q, const float *k,
                                       const float *v, const int64_t *positions,
                                       float *out, float *lse,
                                       const sprt_attention_args *args) {
  const sprt_attention_args &a = *args;
  const Ring ring = checkedRing("sprt_op_ring_attention", a);
  TraceSpan span("ring_attention", a.seq_axis);
  const int64_t n = ring.n(), r = ring.r(), L = a.S * n;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  const int64_t globalHeads = a.heads * sprt_axis_size(a.head_axis),
                headOffset = a.heads * sprt_axis_coord(a.head_axis);
  const SeqPieces mine = ring.queries();
  std::array<bool, 2> written{false, false};

  std::unique_ptr<RingBuffers> bufs;
  if (n > 1)
    bufs = std::make_unique<RingBuffers>(
        ring, ringBuffers(ringBytes(ring), "sprt_op_ring_attention"));
  Block cur{k, v, positions};
  std::vector<CommHandle> reqs;
  for (int64_t t = 0; t < n; ++t) {
    const int64_t owner = (r - t + n) % n;
    const size_t into = size_t(t % 2);
    if (t + 1 < n)
      reqs = exchange(ring, cur, *bufs, into);
    const SeqPieces theirs = ring.keys(owner);
    for (int qi = 0; qi < mine.count; ++qi) {
      const SeqPiece &qp = mine.piece[size_t(qi)];
      for (const SeqPiece &kp : theirs) {
        if (!ring.needed(qp, kp))
          continue;
        sprt_attention_block_f32(
            q + qp.localStart * ring.qRow(),
            cur.k + kp.localStart * ring.kRow(),
            cur.v + kp.localStart * ring.kRow(),
            positions ? positions + qp.localStart * a.B : nullptr,
            cur.positions ? cur.positions + kp.localStart * a.B : nullptr,
            out + qp.localStart * ring.qRow(),
            lse + qp.localStart * a.B * a.heads, qp.rows, kp.rows,
            qp.globalStart, kp.globalStart, L, a.B, a.heads, a.kv_heads,
            a.head_dim, a.causal, documentMask(a.document_causal), a.rotary_dim,
            a.theta, a.dropout_rate, sprt_dropout_key(), uint64_t(a.stream),
            rows.offset, globalHeads, headOffset, written[size_t(qi)] ? 1 : 0);
        written[size_t(qi)] = true;
      }
    }
    if (t + 1 < n) {
      waitAll(reqs);
      cur = Block{bufs->k[into], bufs->v[into],
                  positions ? bufs->pos[into] : nullptr};
    }
  }
}

extern "C" void sprt_op_ring_attention_grad(const float *dout, const float *q,
                                            const float *k, const float *v,
                                            const int64_t *positions,
                                            const float *out, const float *lse,
                                            float *dq, float *dk, float *dv,
                                            const sprt_attention_args *args) {
  const sprt_attention_args &a = *args;
  const Ring ring = checkedRing("sprt_op_ring_attention_grad", a);
  TraceSpan span("ring_attention_grad", a.seq_axis);
  const int64_t n = ring.n(), r = ring.r(), L = a.S * n;
  const BatchGeometry rows = batchGeometry(a.B, a.batch_axis);
  const int64_t globalHeads = a.heads * sprt_axis_size(a.head_axis),
                headOffset = a.heads * sprt_axis_coord(a.head_axis);
  const SeqPieces mine = ring.queries();
  const int next = int((r + 1) % n), prev = int((r - 1 + n) % n);

  // Two K/V/positions sets, then two dK/dV accumulators.
  const int64_t kv = ring.kvBytes();
  char *base = ringBuffers(ringBytes(ring), "sprt_op_ring_attention_grad");
  std::unique_ptr<RingBuffers> bufs;
  if (n > 1)
    bufs = std::make_unique<RingBuffers>(ring, base);
  char *accBase = base + travellingBytes(ring);
  std::array<float *, 2> dkAcc{}, dvAcc{};
  for (size_t i = 0; i < 2; ++i) {
    dkAcc[i] = reinterpret_cast<float *>(accBase + (2 * i) * kv);
    dvAcc[i] = reinterpret_cast<float *>(accBase + (2 * i + 1) * kv);
  }
  const int64_t kvFloats = kv / int64_t(sizeof(float));
  zero(dq, a.S * ring.qRow());
  zero(dkAcc[0], kvFloats);
  zero(dvAcc[0], kvFloats);

  Block cur{k, v, positions};
  size_t acc = 0; // the accumulator of the block held now
  std::vector<CommHandle> reqs;
  for (int64_t t = 0; t < n; ++t) {
    const int64_t owner = (r - t + n) % n;
    const size_t into = size_t(t % 2);
    if (t + 1 < n)
      reqs = exchange(ring, cur, *bufs, into);
    const SeqPieces theirs = ring.keys(owner);
    for (const SeqPiece &qp : mine)
      for (const SeqPiece &kp : theirs) {
        if (!ring.needed(qp, kp))
          continue;
        sprt_attention_block_grad_f32(
            dout + qp.localStart * ring.qRow(), q + qp.localStart * ring.qRow(),
            cur.k + kp.localStart * ring.kRow(),
            cur.v + kp.localStart * ring.kRow(),
            positions ? positions + qp.localStart * a.B : nullptr,
            cur.positions ? cur.positions + kp.localStart * a.B : nullptr,
            out + qp.localStart * ring.qRow(),
            lse + qp.localStart * a.B * a.heads,
            dq + qp.localStart * ring.qRow(),
            dkAcc[acc] + kp.localStart * ring.kRow(),
            dvAcc[acc] + kp.localStart * ring.kRow(), qp.rows, kp.rows,
            qp.globalStart, kp.globalStart, L, a.B, a.heads, a.kv_heads,
            a.head_dim, a.causal, documentMask(a.document_causal), a.rotary_dim,
            a.theta, a.dropout_rate, sprt_dropout_key(), uint64_t(a.stream),
            rows.offset, globalHeads, headOffset);
      }
    if (t + 1 < n) {
      waitAll(reqs);
      cur = Block{bufs->k[into], bufs->v[into],
                  positions ? bufs->pos[into] : nullptr};
    }
    // This block's accumulator goes on to the next rank; the previous
    // rank's (owner r - t - 1; after the last step this rank's own block)
    // comes in.
    if (n > 1) {
      Comm &comm = mesh().comm(a.seq_axis);
      const size_t other = 1 - acc;
      reqs.push_back(comm.startRecv(dkAcc[other], kv, prev));
      reqs.push_back(comm.startRecv(dvAcc[other], kv, prev));
      reqs.push_back(comm.startSend(dkAcc[acc], kv, next));
      reqs.push_back(comm.startSend(dvAcc[acc], kv, next));
      countBytes(a.seq_axis, 2 * kv);
      waitAll(reqs);
      acc = other;
    }
  }
  sprt_copy_2d(dk, kv, dkAcc[acc], kv, kv, 1, sprt_current_stream());
  sprt_copy_2d(dv, kv, dvAcc[acc], kv, kv, 1, sprt_current_stream());
}

extern "C" void sprt_op_ring_attention_prepare(const sprt_attention_args *args,
                                               int32_t backward,
                                               int32_t packed_documents) {
  const sprt_attention_args &a = *args;
  const Ring ring = checkedRing("sprt_op_ring_attention_prepare", a);
  const int64_t n = ring.n(), r = ring.r();
  // The buffers at the size both directions use.
  if (n > 1 || backward)
    ringBuffers(ringBytes(ring), "sprt_op_ring_attention_prepare");
  // The blocks the calls compute: this rank's query runs against every
  // owner's key runs, those the causal mask leaves something of.
  const SeqPieces mine = ring.queries();
  for (int64_t t = 0; t < n; ++t)
    for (const SeqPiece &qp : mine)
      for (const SeqPiece &kp : ring.keys((r - t + n) % n))
        if (ring.needed(qp, kp))
          sprt_attention_prepare(
              qp.rows, kp.rows, qp.globalStart, kp.globalStart, a.B, a.heads,
              a.kv_heads, a.head_dim, a.causal,
              documentMask(a.document_causal, packed_documents), a.dropout_rate,
              backward);
}

void sprt::releaseRingBuffers() {
  RingScratch &s = ringScratch();
  for (void *p : s.outgrown)
    release(p);
  release(s.data);
  s = RingScratch();
}

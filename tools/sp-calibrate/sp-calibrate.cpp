//===- sp-calibrate.cpp - the rates sp-plan's cost model reads
//-------------===//
//
// Run under mpirun on R ranks (sp-plan --calibrate launches it): every rank
// calls the runtime's own entry points (the ones a compiled program calls,
// sprt/abi.def) at the same time, so each rate is what one of R ranks
// sharing this machine achieves:
// - GEMMs (linear, grad input, grad weight) over a grid of shapes;
// - causal attention, forward and backward, and (on more than one rank)
//   ring attention over all ranks;
// - the memory-bound kernels (layer norm and its gradient, GELU and its
//   gradient, add, AdamW) and a plain copy;
// - all-reduce and all-gather on one mesh axis of all R ranks, over sizes
//   from 4 KiB to 8 MiB, with the bytes the runtime counts as sent.
// Each figure is the time of a run of calls over their number, the largest
// over the ranks (the slowest rank sets a step's pace), the median of three
// runs. Rank 0 prints
// the figures as JSON; sp-plan --calibrate fits the cluster description
// and the calibration from them (tools/sp-plan/Calibrate.cpp).
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/// Seconds of one call of `fn`: `reps` calls back to back after a barrier,
/// their time over `reps`, the largest over the ranks (every rank runs
/// them at once). Timing the run of calls, not each call, measures what
/// each rank gets when ranks share cores: a run spans many of the
/// scheduler's time slices.
double timeCalls(const std::function<void()> &fn, int reps) {
  MPI_Barrier(MPI_COMM_WORLD);
  auto begin = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i)
    fn();
  double each = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              begin)
                    .count() /
                reps,
         slowest = 0;
  MPI_Allreduce(&each, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/// A warm-up call, then runs of about 0.1 s: the median of three.
double measure(const std::function<void()> &fn) {
  double probe = timeCalls(fn, 1);
  int reps = std::clamp(int(0.1 / std::max(probe, 1e-7)), 2, 1000);
  double t[3];
  for (double &x : t)
    x = timeCalls(fn, reps);
  std::sort(t, t + 3);
  return t[1];
}

std::vector<float> zeros(int64_t n) { return std::vector<float>(size_t(n)); }

std::vector<float> filled(int64_t n, float scale) {
  std::vector<float> v = zeros(n);
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = scale * float((i * 7919) % 1000) / 1000.0f;
  return v;
}

/// A JSON list of objects, one per line.
struct JsonList {
  std::string text = "[";
  void item(const std::string &s) {
    if (text.size() > 1)
      text += ",\n    ";
    text += s;
  }
  std::string close() const { return text + "]"; }
};

std::string fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

std::string gemms() {
  JsonList out;
  for (int64_t m : {256, 1024, 4096})
    for (int64_t k : {64, 256, 1024})
      for (int64_t n : {64, 256, 1024}) {
        std::vector<float> x = filled(m * k, 1), w = filled(k * n, 0.1f),
                           dy = filled(m * n, 0.1f), y = zeros(m * n),
                           dx = zeros(m * k), dw = zeros(k * n);
        struct {
          const char *op;
          std::function<void()> fn;
        } calls[] = {{"linear",
                      [&] {
                        sprt_linear_f32(x.data(), w.data(), nullptr, y.data(),
                                        m, k, n, 1);
                      }},
                     {"linear_grad_input",
                      [&] {
                        sprt_linear_grad_input_f32(dy.data(), w.data(),
                                                   dx.data(), m, k, n, 1);
                      }},
                     {"linear_grad_weight", [&] {
                        sprt_linear_grad_weight_f32(x.data(), dy.data(),
                                                    dw.data(), m, k, n, 1);
                      }}};
        for (auto &c : calls)
          out.item(fmt("{\"op\": \"%s\", \"m\": %lld, \"k\": %lld, \"n\": "
                       "%lld, \"seconds\": %.9g}",
                       c.op, (long long)m, (long long)k, (long long)n,
                       measure(c.fn)));
      }
  return out.close();
}

std::string attention() {
  JsonList out;
  for (int64_t s : {128, 512})
    for (int64_t d : {32, 64}) {
      const int64_t b = 2, heads = 4, n = s * b * heads * d;
      std::vector<float> q = filled(n, 1), k = filled(n, 1), v = filled(n, 1),
                         o = zeros(n), dout = filled(n, 0.1f), dq = zeros(n),
                         dk = zeros(n), dv = zeros(n);
      sprt_attention_args a{};
      a.S = s, a.B = b, a.heads = heads, a.kv_heads = heads, a.head_dim = d;
      a.causal = 1, a.batch_axis = -1, a.head_axis = -1, a.seq_axis = -1;
      double fwd = measure([&] {
        sprt_op_attention(q.data(), k.data(), v.data(), nullptr, o.data(), &a);
      });
      double bwd = measure([&] {
        sprt_op_attention_grad(dout.data(), q.data(), k.data(), v.data(),
                               nullptr, dq.data(), dk.data(), dv.data(), &a);
      });
      out.item(fmt("{\"s\": %lld, \"b\": %lld, \"heads\": %lld, "
                   "\"head_dim\": %lld, \"forward_seconds\": %.9g, "
                   "\"backward_seconds\": %.9g}",
                   (long long)s, (long long)b, (long long)heads, (long long)d,
                   fwd, bwd));
    }
  return out.close();
}

/// Memory-bound kernels on [T, H] f32 rows, named by their tfm op; "bytes"
/// counts the op's tensor operands and results, as the planner does
/// (AdamW's parameters and moments are symbols, not operands: its bytes
/// are the gradient's).
std::string memoryBound(double &copyBytesPerSecond) {
  const int64_t t = 4096, h = 512, n = t * h, f = 4;
  std::vector<float> x = filled(n, 1), y = zeros(n), dy = filled(n, 0.1f),
                     dx = zeros(n), w = filled(h, 1), b = filled(h, 0.1f),
                     dw = zeros(h), db = zeros(h), m = zeros(n), v = zeros(n),
                     scale = {1.0f};
  struct {
    const char *op;
    int64_t bytes;
    std::function<void()> fn;
  } calls[] = {
      {"copy", 2 * n * f,
       [&] { std::memcpy(y.data(), x.data(), size_t(n * f)); }},
      {"tfm.add", 3 * n * f,
       [&] { sprt_add_f32(x.data(), dy.data(), y.data(), n); }},
      {"tfm.layer_norm", (2 * n + 2 * h) * f,
       [&] {
         sprt_layer_norm_f32(x.data(), w.data(), b.data(), y.data(), t, h,
                             1e-5);
       }},
      {"tfm.layer_norm_grad", (3 * n + 3 * h) * f,
       [&] {
         sprt_layer_norm_grad_f32(dy.data(), x.data(), w.data(), dx.data(),
                                  dw.data(), db.data(), t, h, 1e-5);
       }},
      {"tfm.gelu", 2 * n * f, [&] { sprt_gelu_f32(x.data(), y.data(), n, 1); }},
      {"tfm.gelu_grad", 3 * n * f,
       [&] { sprt_gelu_grad_f32(dy.data(), x.data(), dx.data(), n, 1); }},
      {"tfm.bias_grad", (n + h) * f,
       [&] { sprt_bias_grad_f32(dy.data(), db.data(), t, h); }},
      {"tfm.sum_squares", (n + 1) * f,
       [&] { sprt_op_sum_squares(dy.data(), n, scale.data()); }},
      {"tfm.adamw_update", (n + 1) * f, [&] {
         // The learning rate from the step's values (slot 0), as a compiled
         // step passes it.
         const double lr = 1e-4;
         sprt_upload_step_values(&lr, 1);
         sprt_op_adamw(y.data(), dy.data(), m.data(), v.data(), scale.data(), n,
                       /*lr_slot=*/0, 0.9, 0.999, 1e-8, 0.0, -1, -1);
       }}};
  JsonList out;
  for (auto &c : calls) {
    double seconds = measure(c.fn);
    if (std::string(c.op) == "copy")
      copyBytesPerSecond = double(c.bytes) / seconds;
    out.item(fmt("{\"op\": \"%s\", \"bytes\": %lld, \"seconds\": %.9g}", c.op,
                 (long long)c.bytes, seconds));
  }
  return out.close();
}

/// Ring attention over all ranks (the sequence split R ways, causal), with
/// the bytes the runtime counts as sent by one forward and one backward.
std::string ringAttention() {
  JsonList out;
  const int64_t ranks = sprt_axis_size(0);
  for (int64_t s : {128, 512}) {
    const int64_t b = 2, heads = 4, d = 64, local = s / ranks,
                  n = local * b * heads * d;
    std::vector<float> q = filled(n, 1), k = filled(n, 1), v = filled(n, 1),
                       o = zeros(n), lse = zeros(local * b * heads),
                       dout = filled(n, 0.1f), dq = zeros(n), dk = zeros(n),
                       dv = zeros(n);
    sprt_attention_args a{};
    a.S = local, a.B = b, a.heads = heads, a.kv_heads = heads, a.head_dim = d;
    a.causal = 1, a.batch_axis = -1, a.head_axis = -1, a.seq_axis = 0;
    auto forward = [&] {
      sprt_op_ring_attention(q.data(), k.data(), v.data(), nullptr, o.data(),
                             lse.data(), &a);
    };
    auto backward = [&] {
      sprt_op_ring_attention_grad(dout.data(), q.data(), k.data(), v.data(),
                                  nullptr, o.data(), lse.data(), dq.data(),
                                  dk.data(), dv.data(), &a);
    };
    sprt_reset_bytes_sent();
    forward();
    backward();
    int64_t sent = sprt_bytes_sent(0);
    double fwd = measure(forward), bwd = measure(backward);
    out.item(fmt("{\"s\": %lld, \"ranks\": %lld, \"b\": %lld, \"heads\": "
                 "%lld, \"head_dim\": %lld, \"forward_seconds\": %.9g, "
                 "\"backward_seconds\": %.9g, \"bytes_sent\": %lld}",
                 (long long)local, (long long)ranks, (long long)b,
                 (long long)heads, (long long)d, fwd, bwd, (long long)sent));
  }
  return out.close();
}

std::string collectives() {
  JsonList out;
  for (int64_t bytes = 4096; bytes <= (8 << 20); bytes *= 4) {
    int64_t n = bytes / 4;
    int64_t ranks = sprt_axis_size(0);
    std::vector<float> in = filled(n, 1), sum = zeros(n),
                       gathered = zeros(n * ranks);
    std::vector<float> workspace = zeros(n * ranks);
    struct {
      const char *op;
      std::function<void()> fn;
    } calls[] = {
        {"all_reduce",
         [&] { sprt_all_reduce_f32(in.data(), sum.data(), n, SPRT_SUM, 0); }},
        {"all_gather", [&] {
           sprt_all_gather(in.data(), gathered.data(), 4, 1, n, 1, 1, 1, 0, 0,
                           0, workspace.data(), bytes * ranks);
         }}};
    for (auto &c : calls) {
      sprt_reset_bytes_sent();
      c.fn();
      int64_t sent = sprt_bytes_sent(0);
      out.item(fmt("{\"op\": \"%s\", \"bytes\": %lld, \"bytes_sent\": %lld, "
                   "\"seconds\": %.9g}",
                   c.op, (long long)bytes, (long long)sent, measure(c.fn)));
    }
  }
  return out.close();
}

} // namespace

int main(int argc, char **argv) {
  const char *outPath = argc > 1 ? argv[1] : nullptr;
  sprt::World::init(&argc, &argv);
  int64_t world = sprt::World::size();
  if (sprt_mesh_init(1, &world) != 0) {
    std::fprintf(stderr, "sp-calibrate: the mesh of %lld ranks failed\n",
                 (long long)world);
    return 1;
  }
  double copy = 0;
  std::string json = "{\n  \"ranks\": " + std::to_string(world) +
                     ",\n  \"gemm\": " + gemms() +
                     ",\n  \"attention\": " + attention() +
                     ",\n  \"memory_bound\": " + memoryBound(copy);
  json += ",\n  \"copy_bytes_per_second\": " + fmt("%.9g", copy) +
          ",\n  \"collectives\": " + collectives();
  if (world > 1)
    json += ",\n  \"ring_attention\": " + ringAttention();
  json += "\n}\n";
  int rc = 0;
  if (sprt_world_rank() == 0) {
    FILE *f = outPath ? std::fopen(outPath, "w") : stdout;
    if (!f || std::fputs(json.c_str(), f) < 0) {
      std::fprintf(stderr, "sp-calibrate: cannot write '%s'\n",
                   outPath ? outPath : "stdout");
      rc = 1;
    }
    if (f && f != stdout)
      std::fclose(f);
  }
  sprt_mesh_finalize();
  sprt::World::finalize();
  return rc;
}

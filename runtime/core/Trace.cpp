//===- Trace.cpp - a Chrome / Perfetto trace of a rank --------------------===//

#include "Trace.h"

#include "Mesh.h"

#include "sprt/runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

using namespace sprt;

std::atomic<bool> sprt::detail::traceOn{false};

namespace {
enum class Kind { Op, Collective, Step, Counter };

/// One event: a span (Op, Collective, Step) or a counter sample.
struct Event {
  Kind kind;
  /// Static strings: op names and modules live in the program's constants.
  const char *name = nullptr, *where = nullptr;
  /// Nanoseconds of the monotonic clock (printed as microseconds).
  int64_t ts = 0, dur = 0;
  int32_t axis = -1;
  /// A send's or recv's peer along the axis (Collective), else -1.
  int32_t peer = -1;
  /// Bytes sent (Collective), the step (Step), the live bytes (Counter).
  int64_t value = 0;
  /// Order of the beginnings: the file lists events in it.
  int64_t seq = 0;
};

struct OpenOp {
  const char *name, *where;
  int64_t start;
  int64_t seq;
};

struct Recorder {
  std::mutex mutex;
  std::vector<Event> events;
  /// The compiled step's ops begun and not ended (main thread only).
  std::vector<OpenOp> open;
  int rank = 0;
  std::atomic<int64_t> nextSeq{0};

  void add(Event e) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(e);
  }
};

Recorder &recorder() {
  static Recorder r;
  return r;
}

/// Nanoseconds of the monotonic clock.
int64_t nanos(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             t.time_since_epoch())
      .count();
}
int64_t now() { return nanos(std::chrono::steady_clock::now()); }

/// `s` as a JSON string.
void appendString(std::string &out, const char *s) {
  out += '"';
  for (; s && *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

/// Nanoseconds as microseconds, exactly (three decimals).
void appendMicros(std::string &out, int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%lld.%03lld", ns < 0 ? "-" : "",
                (long long)(std::llabs(ns) / 1000),
                (long long)(std::llabs(ns) % 1000));
  out += buf;
}

int64_t sentOn(int32_t axis) {
  return axis >= 0 && size_t(axis) < mesh().bytesSent.size()
             ? mesh().bytesSent[size_t(axis)]
             : 0;
}

const char *axisName(int32_t axis) {
  return axis >= 0 && size_t(axis) < mesh().names.size()
             ? mesh().names[size_t(axis)].c_str()
             : nullptr;
}
} // namespace

void sprt::startTrace(int rank) {
  Recorder &r = recorder();
  r.rank = rank;
  detail::traceOn.store(true, std::memory_order_relaxed);
}

void sprt::traceStep(int64_t step, std::chrono::steady_clock::time_point begin,
                     std::chrono::steady_clock::time_point end) {
  if (!tracing())
    return;
  Event e{Kind::Step};
  e.name = "step";
  e.ts = nanos(begin);
  e.dur = nanos(end) - e.ts;
  e.value = step;
  // Before every span it holds (which began after it).
  e.seq = -1;
  recorder().add(e);
}

void sprt::traceLiveBytes(int64_t liveBytes) {
  if (!tracing())
    return;
  Event e{Kind::Counter};
  e.name = "device memory";
  e.ts = now();
  e.value = liveBytes;
  e.seq = recorder().nextSeq++;
  recorder().add(e);
}

void TraceSpan::begin(const char *spanName, int32_t spanAxis,
                      int32_t spanPeer) {
  name = spanName;
  axis = spanAxis;
  peer = spanPeer;
  sentBefore = sentOn(axis);
  seq = recorder().nextSeq++;
  start = now();
}

void TraceSpan::end() {
  Event e{Kind::Collective};
  e.name = name;
  e.ts = start;
  e.dur = now() - start;
  e.axis = axis;
  e.peer = peer;
  e.value = sentOn(axis) - sentBefore;
  e.seq = seq;
  recorder().add(e);
}

extern "C" void sprt_trace_begin(const char *name, const char *where) {
  if (!tracing())
    return;
  Recorder &r = recorder();
  int64_t seq = r.nextSeq++;
  r.open.push_back({name, where, now(), seq});
}

extern "C" void sprt_trace_end(void) {
  if (!tracing())
    return;
  Recorder &r = recorder();
  if (r.open.empty())
    return;
  OpenOp o = r.open.back();
  r.open.pop_back();
  Event e{Kind::Op};
  e.name = o.name;
  e.where = o.where;
  e.ts = o.start;
  e.dur = now() - o.start;
  e.seq = o.seq;
  r.add(e);
}

std::string sprt::traceJson() {
  Recorder &r = recorder();
  std::vector<Event> events;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    events = r.events;
  }
  // Steps first, then in the order things began: a span's parent comes
  // before it.
  std::stable_sort(events.begin(), events.end(),
                   [](const Event &a, const Event &b) {
                     if (a.kind == Kind::Step || b.kind == Kind::Step)
                       return a.kind == Kind::Step && b.kind == Kind::Step
                                  ? a.ts < b.ts
                                  : a.kind == Kind::Step;
                     return a.seq < b.seq;
                   });
  std::string pid = std::to_string(r.rank);
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  // The rank's coordinate along each mesh axis (who shares a communicator
  // with it, and who a peer is).
  std::string coords;
  for (int32_t a = 0; a < int32_t(mesh().names.size()); ++a) {
    coords += a ? ", " : "";
    appendString(coords, mesh().names[size_t(a)].c_str());
    coords += ": " + std::to_string(sprt_axis_coord(a));
  }
  out += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + pid +
         ", \"tid\": 0, \"args\": {\"name\": \"rank " + pid +
         "\", \"mesh\": {" + coords + "}}},\n";
  out += "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + pid +
         ", \"tid\": 0, \"args\": {\"name\": \"host\"}}";
  static const char *categories[] = {"op", "collective", "step", "memory"};
  for (const Event &e : events) {
    out += ",\n{\"name\": ";
    if (e.kind == Kind::Step)
      out += "\"step " + std::to_string(e.value) + "\"";
    else
      appendString(out, e.name);
    out += ", \"cat\": \"";
    out += categories[int(e.kind)];
    out += "\", \"ph\": \"";
    out += e.kind == Kind::Counter ? "C" : "X";
    out += "\", \"ts\": ";
    appendMicros(out, e.ts);
    if (e.kind != Kind::Counter) {
      out += ", \"dur\": ";
      appendMicros(out, e.dur);
    }
    out += ", \"pid\": " + pid + ", \"tid\": 0, \"args\": {";
    switch (e.kind) {
    case Kind::Op:
      out += "\"where\": ";
      appendString(out, e.where);
      break;
    case Kind::Collective:
      out += "\"axis\": ";
      if (const char *a = axisName(e.axis))
        appendString(out, a);
      else
        out += "null";
      out += ", \"bytes\": " + std::to_string(e.value);
      if (e.peer >= 0)
        out += ", \"peer\": " + std::to_string(e.peer);
      break;
    case Kind::Step:
      out += "\"step\": " + std::to_string(e.value);
      break;
    case Kind::Counter:
      out += "\"live_bytes\": " + std::to_string(e.value);
      break;
    }
    out += "}}";
  }
  return out + "\n]}\n";
}

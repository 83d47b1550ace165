//===- GraphStep.h - a training step captured once and replayed -*- C++ -*-===//
//
// With --cuda-graph (the default) on a backend that has graphs (CUDA), the
// training step is captured once and replayed, one launch instead of one
// per kernel, copy and collective:
//
//   - the first step runs eagerly: every buffer, plan and scratch buffer is
//     sized by it;
//   - the second is captured (the compiled step's work recorded, not run),
//     then launched;
//   - every later step replays the capture while its key is the one it was
//     captured with.
//
// What changes from step to step reaches the kernels on the device: the
// token buffers main() fills before the launch, the step's values (the
// learning rate, the loss scale and AdamW's step count,
// sprt_stage_step_values) whose copy the capture holds. The key is what the
// compiled step passes by value that may change (the hyperparameter table
// but the learning rate and the loss scale): a step of another key is
// captured again, and after kMaxCaptures captures the run goes on eagerly.
// A capture that records a value changing every step (a dropout key, packed
// position ids: sprt_capture_end), that the backend could not record, or
// whose step threw (run eagerly then, where it may throw again) sends the
// run eagerly for good. The ranks decide together: a capture stands only if
// it stands on every rank (the agreement callback).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_DRIVER_GRAPHSTEP_H
#define SPRT_DRIVER_GRAPHSTEP_H

#include <functional>
#include <string>
#include <vector>

namespace sprt {

class GraphStep {
public:
  /// The backend's graph calls (sprt/device.h, sprt_capture_*: Trainer.cpp
  /// binds them), and the ranks' agreement; replaceable in tests.
  struct Backend {
    std::function<bool()> supported;
    /// Begins recording the stream's work and the runtime's refusals.
    std::function<void()> begin;
    /// Ends it: the graph, or nullptr with `why` set (a refusal or the
    /// backend's error).
    std::function<void *(std::string &why)> end;
    std::function<void(void *)> launch, destroy;
    /// Whether `ok` holds on every rank.
    std::function<bool(bool ok)> agree;
  };
  static constexpr int kMaxCaptures = 4;

  /// `requested`: --cuda-graph and nothing that rules it out; `notes` gets
  /// why graphs went off (one line, when they do).
  GraphStep(bool requested, Backend backend,
            std::function<void(const std::string &)> notes);
  ~GraphStep();
  GraphStep(const GraphStep &) = delete;
  GraphStep &operator=(const GraphStep &) = delete;

  enum class Ran { eager, captured, replayed };
  /// Runs one step: `issue` issues its work on the stream (the compiled
  /// step); `key` its by-value inputs that may change between steps.
  Ran run(const std::function<void()> &issue, const std::vector<double> &key);

  /// Whether steps may still be captured or replayed.
  bool on() const { return state != State::off; }

private:
  enum class State { warmUp, capture, replay, off };
  void turnOff(const std::string &why);

  Backend backend;
  std::function<void(const std::string &)> notes;
  State state;
  void *graph = nullptr;
  std::vector<double> capturedKey;
  int captures = 0;
};

const char *ranName(GraphStep::Ran ran);

} // namespace sprt

#endif // SPRT_DRIVER_GRAPHSTEP_H

//===- GraphStep.cpp - a training step captured once and replayed ---------===//

#include "GraphStep.h"

#include <exception>

using namespace sprt;

GraphStep::GraphStep(bool requested, Backend backend,
                     std::function<void(const std::string &)> notes)
    : backend(std::move(backend)), notes(std::move(notes)),
      state(requested && this->backend.supported() ? State::warmUp
                                                   : State::off) {}

GraphStep::~GraphStep() {
  if (graph)
    backend.destroy(graph);
}

void GraphStep::turnOff(const std::string &why) {
  if (graph)
    backend.destroy(graph);
  graph = nullptr;
  state = State::off;
  notes("cuda graph: off, every step runs eagerly: " + why);
}

GraphStep::Ran GraphStep::run(const std::function<void()> &issue,
                              const std::vector<double> &key) {
  switch (state) {
  case State::off:
    issue();
    return Ran::eager;
  case State::warmUp:
    // Sizes every buffer, plan and scratch buffer the capture then reuses.
    issue();
    state = State::capture;
    return Ran::eager;
  case State::replay:
    if (key == capturedKey) {
      backend.launch(graph);
      return Ran::replayed;
    }
    backend.destroy(graph);
    graph = nullptr;
    if (captures >= kMaxCaptures) {
      turnOff("the step's by-value inputs (its hyperparameter table but the "
              "learning rate and the loss scale) changed after " +
              std::to_string(captures) + " captures");
      issue();
      return Ran::eager;
    }
    break;
  case State::capture:
    break;
  }
  // Capture: the work is recorded, not run; launching the graph runs it.
  // A step that throws while captured ends the capture (the stream would
  // stay capturing) and runs eagerly, where what threw can throw again.
  ++captures;
  backend.begin();
  std::string thrown;
  try {
    issue();
  } catch (const std::exception &e) {
    thrown = e.what();
  } catch (...) {
    thrown = "an exception";
  }
  std::string why;
  void *captured = backend.end(why);
  if (!thrown.empty()) {
    if (captured)
      backend.destroy(captured);
    captured = nullptr;
    why = "the captured step threw: " + thrown;
  }
  if (!backend.agree(captured != nullptr)) {
    if (captured)
      backend.destroy(captured);
    turnOff(why.empty() ? "another rank's capture did not stand" : why);
    issue();
    return Ran::eager;
  }
  graph = captured;
  capturedKey = key;
  state = State::replay;
  backend.launch(graph);
  return Ran::captured;
}

const char *sprt::ranName(GraphStep::Ran ran) {
  switch (ran) {
  case GraphStep::Ran::eager:
    return "eager";
  case GraphStep::Ran::captured:
    return "captured";
  case GraphStep::Ran::replayed:
    return "replayed";
  }
  return "eager";
}

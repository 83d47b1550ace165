//===- GraphStepTest.cpp - when a step is captured, replayed or eager -----===//
//
// GraphStep (runtime/driver/GraphStep.h) over a recording backend: the first
// step eager, the second captured and launched, later ones replayed while
// their key holds; a new key captured again, up to kMaxCaptures; a refused
// or failed capture, or another rank's, sends the run eagerly for good (the
// step re-issued eagerly, one note); no graphs without the backend's
// support or the flag.
//
//===----------------------------------------------------------------------===//

#include "../driver/GraphStep.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace sprt;

namespace {

/// A backend that records what is asked of it.
struct Recorder {
  bool supported = true;
  /// What the next end reports: "" a graph, else the refusal.
  std::string refuse;
  /// What the other ranks agree to.
  bool othersAgree = true;
  std::vector<std::string> log;
  std::vector<std::string> notes;
  int graphs = 0, live = 0;

  GraphStep::Backend backend() {
    GraphStep::Backend b;
    b.supported = [this] { return supported; };
    b.begin = [this] { log.push_back("begin"); };
    b.end = [this](std::string &why) -> void * {
      log.push_back("end");
      if (!refuse.empty()) {
        why = refuse;
        return nullptr;
      }
      ++live;
      return reinterpret_cast<void *>(intptr_t(++graphs));
    };
    b.launch = [this](void *g) {
      log.push_back("launch " + std::to_string(intptr_t(g)));
    };
    b.destroy = [this](void *g) {
      log.push_back("destroy " + std::to_string(intptr_t(g)));
      --live;
    };
    b.agree = [this](bool ok) { return ok && othersAgree; };
    return b;
  }
  std::function<void(const std::string &)> noter() {
    return [this](const std::string &n) { notes.push_back(n); };
  }
  std::function<void()> issue() {
    return [this] { log.push_back("issue"); };
  }
  std::string take() {
    std::string s;
    for (const std::string &l : log)
      s += (s.empty() ? "" : ", ") + l;
    log.clear();
    return s;
  }
};

const std::vector<double> kKey = {1.0, 0.9}, kOtherKey = {2.0, 0.9};

TEST(GraphStep, WarmsUpCapturesThenReplays) {
  Recorder r;
  {
    GraphStep g(true, r.backend(), r.noter());
    EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
    EXPECT_EQ(r.take(), "issue");
    EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::captured);
    EXPECT_EQ(r.take(), "begin, issue, end, launch 1");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::replayed);
      EXPECT_EQ(r.take(), "launch 1");
    }
    EXPECT_TRUE(g.on());
  }
  EXPECT_EQ(r.take(), "destroy 1");
  EXPECT_EQ(r.live, 0);
  EXPECT_TRUE(r.notes.empty());
}

TEST(GraphStep, ANewKeyIsCapturedAgainUpToTheLimit) {
  Recorder r;
  GraphStep g(true, r.backend(), r.noter());
  g.run(r.issue(), kKey);
  g.run(r.issue(), kKey);
  r.take();
  EXPECT_EQ(g.run(r.issue(), kOtherKey), GraphStep::Ran::captured);
  EXPECT_EQ(r.take(), "destroy 1, begin, issue, end, launch 2");
  EXPECT_EQ(g.run(r.issue(), kOtherKey), GraphStep::Ran::replayed);
  // Keys alternating every step: captures 3 and 4, then eager for good.
  EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::captured);
  EXPECT_EQ(g.run(r.issue(), kOtherKey), GraphStep::Ran::captured);
  r.take();
  EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
  EXPECT_EQ(r.take(), "destroy 4, issue");
  EXPECT_FALSE(g.on());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("changed after 4 captures"), std::string::npos)
      << r.notes[0];
  EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
  EXPECT_EQ(r.take(), "issue");
  EXPECT_EQ(r.live, 0);
}

TEST(GraphStep, ARefusedCaptureRunsTheStepEagerlyForGood) {
  Recorder r;
  GraphStep g(true, r.backend(), r.noter());
  g.run(r.issue(), kKey);
  r.take();
  r.refuse = "dropout draws from the step's key";
  EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
  // Captured (not run), then run eagerly.
  EXPECT_EQ(r.take(), "begin, issue, end, issue");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "cuda graph: off, every step runs eagerly: dropout "
                        "draws from the step's key");
  EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
  EXPECT_EQ(r.take(), "issue");
}

TEST(GraphStep, AnotherRanksFailureTurnsEveryRankOff) {
  Recorder r;
  r.othersAgree = false;
  GraphStep g(true, r.backend(), r.noter());
  g.run(r.issue(), kKey);
  r.take();
  EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
  EXPECT_EQ(r.take(), "begin, issue, end, destroy 1, issue");
  EXPECT_EQ(r.live, 0);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("another rank"), std::string::npos);
}

TEST(GraphStep, AStepThatThrowsWhileCapturedEndsTheCaptureAndRunsEagerly) {
  Recorder r;
  GraphStep g(true, r.backend(), r.noter());
  g.run(r.issue(), kKey);
  r.take();
  bool threw = false;
  auto throwOnce = [&] {
    r.log.push_back("issue");
    if (!threw) {
      threw = true;
      throw std::runtime_error("cuDNN's backward failed");
    }
  };
  EXPECT_EQ(g.run(throwOnce, kKey), GraphStep::Ran::eager);
  EXPECT_EQ(r.take(), "begin, issue, end, destroy 1, issue");
  EXPECT_EQ(r.live, 0);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "cuda graph: off, every step runs eagerly: the "
                        "captured step threw: cuDNN's backward failed");
  // What throws again when run eagerly reaches the caller.
  threw = false;
  EXPECT_THROW(g.run(throwOnce, kKey), std::runtime_error);
}

TEST(GraphStep, NoGraphsWithoutTheBackendOrTheFlag) {
  for (bool supported : {false, true}) {
    Recorder r;
    r.supported = supported;
    GraphStep g(/*requested=*/!supported ? true : false, r.backend(),
                r.noter());
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(g.run(r.issue(), kKey), GraphStep::Ran::eager);
    EXPECT_EQ(r.take(), "issue, issue, issue");
    EXPECT_FALSE(g.on());
    EXPECT_TRUE(r.notes.empty());
  }
}

} // namespace

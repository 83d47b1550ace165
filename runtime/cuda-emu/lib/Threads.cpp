//===- Threads.cpp - a kernel's threads as fibers
//--------------------------===//
//
// runGrid runs the blocks one after another; a block's threads are fibers
// (ucontext) of the calling host thread, switched round-robin. A thread at
// __syncthreads waits until every thread of its block that has not returned
// is there; one at a warp barrier (__syncwarp, each half of a shuffle) until
// every such thread of its warp is. A block where no thread can go on (some
// wait at one barrier, the others at another) is an error: on a GPU it is
// undefined behaviour, most often a hang.
//
// On x86-64 a switch saves and restores the callee-saved registers and the
// stack pointer (swapcontext's signal-mask system call would make it a
// hundred times slower); elsewhere it is ucontext's. Under AddressSanitizer
// each switch is announced to it (__sanitizer_start_switch_fiber), so that
// the kernels' reads and writes of device and shared memory are checked.
//
// The threads run in index order on one pass between barriers and in the
// reverse order on the next (odd blocks start reversed): a thread that reads
// what another writes without a barrier between gets a different value in
// one of the two orders, which a test comparing with its reference sees.
//
//===----------------------------------------------------------------------===//

#include "Emu.h"
#include "SprtEmu.h"

#include <sys/mman.h>
#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SPRT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define SPRT_EMU_ASAN 1
#endif
#endif

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace sprt_emu {

ThreadState *current = nullptr;

namespace {

enum class Wait { None, Block, Warp, Done };

constexpr size_t kStackBytes = size_t(256) << 10;
constexpr int kMaxThreads = 1024;

#if defined(__x86_64__)
/// Saves the callee-saved registers on this stack and its pointer in
/// *save, then resumes the stack `next` saved.
extern "C" void sprtEmuSwitch(void **save, void *next);
asm(R"(
  .text
  .globl sprtEmuSwitch
  .type sprtEmuSwitch, @function
sprtEmuSwitch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size sprtEmuSwitch, .-sprtEmuSwitch
)");
struct Context {
  void *sp = nullptr;
};
void switchTo(Context &save, Context &next) {
  sprtEmuSwitch(&save.sp, next.sp);
}
/// A context that starts `entry` on the stack [base, base + bytes).
void makeContext(Context &c, char *base, size_t bytes, void (*entry)()) {
  auto top = reinterpret_cast<uintptr_t>(base + bytes) & ~uintptr_t(15);
  auto *slot = reinterpret_cast<void **>(top - 16);
  slot[0] = reinterpret_cast<void *>(entry); // sprtEmuSwitch's ret
  slot[1] = nullptr;
  c.sp = slot - 6; // the six registers it pops, zero
  for (int i = 1; i <= 6; ++i)
    slot[-i] = nullptr;
}
#else
struct Context {
  ucontext_t uc;
};
void switchTo(Context &save, Context &next) { swapcontext(&save.uc, &next.uc); }
void makeContext(Context &c, char *base, size_t bytes, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = base;
  c.uc.uc_stack.ss_size = bytes;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

struct Fiber {
  Context context;
  void *fakeStack = nullptr; // AddressSanitizer's, while switched away
  ThreadState state;
  Wait wait = Wait::None;
  int linear = 0;
};

struct BlockRun {
  std::vector<Fiber> fibers;
  Context scheduler;
  const std::function<void()> *body = nullptr;
  Fiber *running = nullptr;
  std::vector<char> shared;
  std::vector<uint64_t> slots; // one per thread: the shuffles' values
  const char *kernel = "";
  const void *schedulerStack = nullptr; // AddressSanitizer's bounds of it
  size_t schedulerStackBytes = 0;
  void *schedulerFakeStack = nullptr;
};

BlockRun *block = nullptr;

char *stacks() {
  static char *base = [] {
    void *p = mmap(nullptr, kStackBytes * kMaxThreads, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "sprt emu: no memory for the fibers' stacks\n");
      std::abort();
    }
    return static_cast<char *>(p);
  }();
  return base;
}

/// Tells AddressSanitizer the running fiber leaves for the scheduler
/// (`done`: for good), and that it is back.
void leaveForScheduler(BlockRun &b, bool done) {
#ifdef SPRT_EMU_ASAN
  __sanitizer_start_switch_fiber(done ? nullptr : &b.running->fakeStack,
                                 b.schedulerStack, b.schedulerStackBytes);
#else
  (void)b;
  (void)done;
#endif
}
void backInFiber(Fiber &f) {
#ifdef SPRT_EMU_ASAN
  __sanitizer_finish_switch_fiber(f.fakeStack, nullptr, nullptr);
#else
  (void)f;
#endif
}

void fiberMain() {
  BlockRun &b = *block;
#ifdef SPRT_EMU_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &b.schedulerStack,
                                  &b.schedulerStackBytes);
#endif
  (*b.body)();
  b.running->wait = Wait::Done;
  leaveForScheduler(b, true);
  switchTo(b.running->context, b.scheduler);
  __builtin_unreachable();
}

void yieldTo(Wait w) {
  BlockRun &b = *block;
  if (!b.running) {
    std::fprintf(stderr, "sprt emu: a barrier outside a kernel\n");
    std::abort();
  }
  b.running->wait = w;
  Fiber &f = *b.running;
  leaveForScheduler(b, false);
  switchTo(f.context, b.scheduler);
  backInFiber(f);
}

[[noreturn]] void deadlock(const BlockRun &b) {
  std::string where;
  int atBlock = 0, atWarp = 0;
  for (const Fiber &f : b.fibers) {
    atBlock += f.wait == Wait::Block;
    atWarp += f.wait == Wait::Warp;
  }
  std::fprintf(stderr,
               "sprt emu: kernel %s, block (%u, %u, %u): the threads cannot go "
               "on: %d wait at __syncthreads, %d at a warp barrier or shuffle "
               "(a barrier some threads of the block or warp do not reach)\n",
               b.kernel, b.fibers[0].state.block.x, b.fibers[0].state.block.y,
               b.fibers[0].state.block.z, atBlock, atWarp);
  std::abort();
}

/// Releases the barriers every live thread of their scope has reached;
/// whether any was.
bool release(BlockRun &b) {
  bool any = false;
  const int n = int(b.fibers.size());
  bool blockReady = true, someAtBlock = false;
  for (const Fiber &f : b.fibers) {
    if (f.wait == Wait::Block)
      someAtBlock = true;
    else if (f.wait != Wait::Done)
      blockReady = false;
  }
  if (someAtBlock && blockReady) {
    for (Fiber &f : b.fibers)
      if (f.wait == Wait::Block)
        f.wait = Wait::None;
    any = true;
  }
  for (int w = 0; w < n; w += 32) {
    bool ready = true, someAt = false;
    for (int i = w; i < n && i < w + 32; ++i) {
      if (b.fibers[i].wait == Wait::Warp)
        someAt = true;
      else if (b.fibers[i].wait != Wait::Done)
        ready = false;
    }
    if (someAt && ready) {
      for (int i = w; i < n && i < w + 32; ++i)
        if (b.fibers[i].wait == Wait::Warp)
          b.fibers[i].wait = Wait::None;
      any = true;
    }
  }
  return any;
}

void enterFiber(BlockRun &b, Fiber &f, char *stack) {
#ifdef SPRT_EMU_ASAN
  __sanitizer_start_switch_fiber(&b.schedulerFakeStack, stack, kStackBytes);
#else
  (void)stack;
#endif
  switchTo(b.scheduler, f.context);
#ifdef SPRT_EMU_ASAN
  __sanitizer_finish_switch_fiber(b.schedulerFakeStack, nullptr, nullptr);
#endif
}

void runBlock(BlockRun &b, bool reversedFirst) {
  char *stack = stacks();
  for (Fiber &f : b.fibers) {
    makeContext(f.context, stack + size_t(f.linear) * kStackBytes, kStackBytes,
                fiberMain);
    f.wait = Wait::None;
  }
  const int n = int(b.fibers.size());
  for (bool reversed = reversedFirst;; reversed = !reversed) {
    bool ran = false, live = false;
    for (int i = 0; i < n; ++i) {
      Fiber &f = b.fibers[size_t(reversed ? n - 1 - i : i)];
      if (f.wait == Wait::Done)
        continue;
      live = true;
      if (f.wait != Wait::None)
        continue;
      b.running = &f;
      current = &f.state;
      enterFiber(b, f, stack + size_t(f.linear) * kStackBytes);
      ran = true;
    }
    b.running = nullptr;
    current = nullptr;
    if (!live)
      return;
    if (!release(b) && !ran)
      deadlock(b);
  }
}

} // namespace

void *dynamicSharedBytes() { return block->shared.data(); }

void syncThreads() { yieldTo(Wait::Block); }
void syncWarp() { yieldTo(Wait::Warp); }

uint64_t exchange(uint64_t bits, int src) {
  BlockRun &b = *block;
  const int me = b.running->linear;
  b.slots[size_t(me)] = bits;
  yieldTo(Wait::Warp);
  const int from = (me & ~31) + src;
  const uint64_t got = from < int(b.slots.size()) ? b.slots[size_t(from)] : 0;
  yieldTo(Wait::Warp); // nobody overwrites a slot before every lane read it
  return got;
}

void executeGrid(const Config &c, const char *kernel,
                 const std::function<void()> &body) {
  const int threads = int(c.block.x * c.block.y * c.block.z);
  BlockRun b;
  b.body = &body;
  b.kernel = kernel;
  b.fibers.resize(size_t(threads));
  b.slots.assign(size_t(threads), 0);
  // Shared memory starts as NaNs: a read before a write shows.
  b.shared.assign(c.shared, char(0xff));
  BlockRun *outer = block;
  ThreadState *outerThread = current;
  block = &b;
  for (unsigned z = 0; z < c.grid.z; ++z)
    for (unsigned y = 0; y < c.grid.y; ++y)
      for (unsigned x = 0; x < c.grid.x; ++x) {
        int linear = 0;
        for (unsigned tz = 0; tz < c.block.z; ++tz)
          for (unsigned ty = 0; ty < c.block.y; ++ty)
            for (unsigned tx = 0; tx < c.block.x; ++tx, ++linear) {
              Fiber &f = b.fibers[size_t(linear)];
              f.linear = linear;
              f.state.idx = make_uint3(tx, ty, tz);
              f.state.block = make_uint3(x, y, z);
              f.state.blockDims = c.block;
              f.state.gridDims = c.grid;
            }
        runBlock(b, (x + y + z) % 2 == 1);
      }
  block = outer;
  current = outerThread;
}

} // namespace sprt_emu

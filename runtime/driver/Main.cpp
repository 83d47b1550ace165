//===- Main.cpp - main() of a compiled seqpar program ---------------------===//
//
//   mpirun -np N ./prog [--steps K] [--seed S] [--data FILE]
//                       [--init-from FILE.safetensors|INDEX.json]
//                       [--log metrics.jsonl] [--dump-params FILE]
//                       [--dump-outputs FILE] [--dump-grads FILE]
//                       [--dump-dtype f32|bf16|f16]
//                       [--export-hf DIR [--export-shard-bytes N]]
//                       [--checkpoint-dir DIR [--save-every N]
//                        [--resume | --overwrite-checkpoints]]
//                       [--timeout SECONDS] [--on-nonfinite stop|skip]
//                       [--comm nccl|mpi|mpi-staged]
//                       [--trace FILE|DIR] [--peak-flops FLOP/s-per-rank]
//                       [--loss-scale S ...] (LossScale.h)
//                       [--lr LR ... --override-schedule] (Schedule.h)
//                       [--shuffle] [--data-seed S] [--epochs E]
//                       (SampleOrder.h)
//                       [--valid-data FILE [--eval-every N]
//                        [--eval-steps K]] (Eval.h)
//
// The run's phases are a Trainer's (Trainer.h): set-up, parameters and
// buffers, the steps, the finish. Every check that can fail is made by every
// rank on the same inputs where it can be, so a bad flag or file makes every
// rank print the error and exit 1; a failure on one rank alone ends the job
// (Failure.h).
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "Failure.h"
#include "Startup.h"
#include "Trainer.h"

#include <csignal>

using namespace sprt;

int main(int argc, char **argv) {
  markMainEntry();
  World::init(&argc, &argv);
  initFailure();
  // Past a file-size limit, writes fail with EFBIG (reported) instead of
  // the signal killing the rank.
  std::signal(SIGXFSZ, SIG_IGN);
  Trainer trainer;
  int exitCode = trainer.setUp(argc, argv);
  if (exitCode < 0) {
    trainer.prepare();
    trainer.train();
    trainer.finish();
    exitCode = 0;
  }
  World::finalize();
  return exitCode;
}

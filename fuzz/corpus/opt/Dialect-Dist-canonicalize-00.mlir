// RUN: sp-opt %s -split-input-file -canonicalize | FileCheck %s
// Every op verifies after the rewrites (sp-opt verifies its output, the
// collectives' shapes and layouts included); canonicalize-verify.mlir runs
// sp-verify on whole programs rewritten the same way.

// The partitioner already emits none of the pairs rewritten here (it goes
// P -> S(d) with one reduce_scatter, emits no collective on an axis of size
// 1 and shares one collective between the users of a value), so on its
// output, forward and whole train step, canonicalization changes nothing and
// the result still verifies.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sp-import --hf-config %examples/configs/gpt2-tiny.json --seq-len 16 --batch 2 -o %t/gpt2.mlir
// RUN: sp-opt %t/gpt2.mlir --sp-partition="tp=2 sequence-parallel=true" -o %t/sp.mlir
// RUN: sp-opt %t/sp.mlir --canonicalize --sp-verify -o %t/sp-canon.mlir
// RUN: diff %t/sp.mlir %t/sp-canon.mlir
// RUN: FileCheck %s --check-prefix=GPT2 < %t/sp-canon.mlir
// RUN: sp-opt %t/gpt2.mlir --sp-partition="tp=2 dp=2 sequence-parallel=true" --tfm-autodiff --sp-sync-grads --sp-optimizer -o %t/step.mlir
// RUN: sp-opt %t/step.mlir --canonicalize --sp-verify -o %t/step-canon.mlir
// RUN: diff %t/step.mlir %t/step-canon.mlir
// RUN: sp-opt %t/gpt2.mlir --sp-partition="tp=4 sequence-parallel=false" -o %t/tp.mlir
// RUN: sp-opt %t/tp.mlir --canonicalize --sp-verify -o %t/tp-canon.mlir
// RUN: diff %t/tp.mlir %t/tp-canon.mlir
// GPT2: dist.reduce_scatter
// GPT2: dist.all_gather

//===----------------------------------------------------------------------===//
// A collective over an axis of size 1 is its operand (same type)
//===----------------------------------------------------------------------===//

dist.mesh @mesh ["dp" = 2, "tp" = 1]
// CHECK-LABEL: func.func @unit_all_gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unit_all_gather(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.all_gather %x on @mesh["tp"] dim 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}


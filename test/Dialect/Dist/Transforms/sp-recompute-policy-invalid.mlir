// RUN: not sp-opt %s -sp-recompute=policy=partial 2>&1 | FileCheck %s
// RUN: not sp-opt %s -sp-recompute=policy=Full 2>&1 | FileCheck %s --check-prefix=CASE

// The policy is one of none, selective, full (lowercase): the option
// library refuses any other value, naming the option and the value
// (SeqparChoices.h), before the pass runs.
// CHECK: for the --policy option: Cannot find option named 'partial'!
// CASE: for the --policy option: Cannot find option named 'Full'!
module {
  func.func @train_step(%x: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
    %one = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
    return %x : tensor<f32>
  }
}

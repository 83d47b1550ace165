// RUN: sp-opt %s -split-input-file -sp-recompute=policy=selective -verify-diagnostics
// RUN: sp-opt %s -split-input-file -sp-recompute=policy=none -verify-diagnostics

// sp-recompute works on the backward tfm-autodiff builds: a module without
// a train step is an error at the module, whatever the policy (none too:
// asking for a recompute policy before differentiating is a pipeline
// mistake, not a no-op to hide).
// expected-error @+1 {{sp-recompute: the module has no function marked tfm.train_step: recompute needs the backward tfm-autodiff builds (run it first)}}
module {
  func.func @forward(%x: tensor<f32>) -> tensor<f32> attributes {tfm.forward} {
    return %x : tensor<f32>
  }
}


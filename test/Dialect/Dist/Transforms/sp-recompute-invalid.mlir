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

// -----

// A train step whose backward has no seed: nothing says where it begins.
module {
  // expected-error @+1 {{'func.func' op sp-recompute: the train step has no op marked tfm.backward_begins (the seed of its backward)}}
  func.func @train_step(%x: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
    return %x : tensor<f32>
  }
}

// -----

// The pass runs once: a second run would copy the copies.
// expected-error @+1 {{sp-recompute: the module is already recomputed (tfm.recompute = #tfm.recompute<full>)}}
module attributes {tfm.recompute = #tfm.recompute<full>} {
  func.func @train_step(%x: tensor<f32>) -> tensor<f32> attributes {tfm.train_step} {
    %one = tfm.fill 1.0 {tfm.backward_begins} : tensor<f32>
    return %x : tensor<f32>
  }
}

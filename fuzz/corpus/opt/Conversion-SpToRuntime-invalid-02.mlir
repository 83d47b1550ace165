
// expected-error @+1 {{convert-sp-to-runtime: the module has no function marked tfm.forward or tfm.train_step}}
module {
  func.func @other() {
    return
  }
}


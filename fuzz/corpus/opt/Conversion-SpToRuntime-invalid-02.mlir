
// expected-error @+1 {{convert-sp-to-runtime: the module has no @forward or @train_step function}}
module {
  func.func @other() {
    return
  }
}


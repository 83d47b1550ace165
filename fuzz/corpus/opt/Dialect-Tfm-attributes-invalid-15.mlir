
// expected-error @+1 {{'builtin.module' op 'tfm.recompute' must be "none", "selective" or "full", got "some"}}
module attributes {tfm.recompute = "some"} {
}


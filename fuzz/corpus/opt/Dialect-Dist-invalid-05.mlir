
// expected-error @+1 {{has 1 axis names but 2 sizes}}
"dist.mesh"() <{sym_name = "m", axis_names = ["dp"], axis_sizes = array<i64: 2, 4>}> : () -> ()


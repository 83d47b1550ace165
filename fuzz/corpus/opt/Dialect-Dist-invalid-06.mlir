
// expected-error @+1 {{attribute 'axis_names' failed to satisfy constraint: string array attribute}}
"dist.mesh"() <{sym_name = "m", axis_names = [1, 2], axis_sizes = array<i64: 2, 4>}> : () -> ()



// expected-error @+1 {{'dist.mesh' op axis 'tp' has the invalid role 7}}
"dist.mesh"() <{sym_name = "m", axis_names = ["tp"], axis_sizes = array<i64: 2>, axis_roles = array<i32: 7>}> : () -> ()

//===----------------------------------------------------------------------===//
// #dist.layout
//===----------------------------------------------------------------------===//


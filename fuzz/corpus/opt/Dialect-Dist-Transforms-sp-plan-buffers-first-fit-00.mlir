// RUN: sp-opt %s --sp-plan-buffers | FileCheck %s

// First fit, value by value, gives each value the lowest aligned offset that
// no value live at the same time holds. sp-plan-buffers finds it through a
// segment tree over time (SpPlanBuffers.cpp, placeFast); these offsets are
// the ones the scan of every placed value gave, which it replaced: a gap
// left by a dead value is reused (%4 at 0 after %0 died, %6 at 8064 where %1
// was), a value that takes over its operand's bytes shares them (%5 with %3),
// and values live together never overlap.

func.func @gaps(%x: tensor<1000xf32>, %y: tensor<100xf32>) -> (tensor<1000xf32>, tensor<100xf32>) {
  %a = tfm.silu %x : tensor<1000xf32>
  %b = tfm.silu %y : tensor<100xf32>
  %c = tfm.silu %a : tensor<1000xf32>
  %d = tfm.add %b, %b : tensor<100xf32>
  %e = tfm.silu %c : tensor<1000xf32>
  %f = tfm.scale %d by 0.5 : tensor<100xf32>
  %g = tfm.add %e, %e : tensor<1000xf32>
  %h = tfm.add %f, %f : tensor<100xf32>
  %i = tfm.add %g, %c : tensor<1000xf32>
  return %i, %h : tensor<1000xf32>, tensor<100xf32>
}

// CHECK-LABEL: func.func @gaps(%arg0: tensor<1000xf32>, %arg1: tensor<100xf32>) -> (tensor<1000xf32>, tensor<100xf32>) attributes {dist.arena_bytes = 12944 : i64, dist.arena_max_live = 12400 : i64} {
// CHECK-NEXT: %0 = tfm.silu %arg0 {dist.arena_offsets = array<i64: 0>} : tensor<1000xf32>
// CHECK-NEXT: %1 = tfm.silu %arg1 {dist.arena_offsets = array<i64: 8064>} : tensor<100xf32>
// CHECK-NEXT: %2 = tfm.silu %0 {dist.arena_offsets = array<i64: 4032>} : tensor<1000xf32>
// CHECK-NEXT: %3 = tfm.add %1, %1 {dist.arena_offsets = array<i64: 12096>} : tensor<100xf32>
// CHECK-NEXT: %4 = tfm.silu %2 {dist.arena_offsets = array<i64: 0>} : tensor<1000xf32>
// CHECK-NEXT: %5 = tfm.scale %3 by 5.000000e-01 {dist.arena_offsets = array<i64: 12096>} : tensor<100xf32>
// CHECK-NEXT: %6 = tfm.add %4, %4 {dist.arena_offsets = array<i64: 8064>} : tensor<1000xf32>
// CHECK-NEXT: %7 = tfm.add %5, %5 {dist.arena_offsets = array<i64: 12544>} : tensor<100xf32>
// CHECK-NEXT: %8 = tfm.add %6, %2 {dist.arena_offsets = array<i64: 0>} : tensor<1000xf32>
// CHECK-NEXT: return %8, %7 : tensor<1000xf32>, tensor<100xf32>

// Random straight-line code (78 ops, two sizes, in-place scalings): every
// offset as the scan placed it.
func.func @mixed(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<64x3xf32>) -> () {
  %v0 = tfm.add %arg2, %arg2 : tensor<64x3xf32>
  %v1 = tfm.add %arg0, %arg1 : tensor<16xf32>
  %v2 = tfm.add %arg1, %v1 : tensor<16xf32>
  %v3 = tfm.silu %arg2 : tensor<64x3xf32>
  %v4 = tfm.add %v1, %arg0 : tensor<16xf32>
  %v5 = tfm.silu %arg0 : tensor<16xf32>
  %v6 = tfm.scale %v1 by 0.5 : tensor<16xf32>
  %v7 = tfm.add %v0, %arg2 : tensor<64x3xf32>
  %v8 = tfm.add %v4, %arg1 : tensor<16xf32>
  %v9 = tfm.scale %arg0 by 0.5 : tensor<16xf32>
  %v10 = tfm.add %arg2, %arg2 : tensor<64x3xf32>
  %v11 = tfm.add %v8, %v6 : tensor<16xf32>
  %v12 = tfm.add %v3, %v7 : tensor<64x3xf32>
  %v13 = tfm.silu %arg0 : tensor<16xf32>
  %v14 = tfm.scale %v5 by 0.5 : tensor<16xf32>
  %v15 = tfm.silu %v9 : tensor<16xf32>
  %v16 = tfm.scale %v10 by 0.5 : tensor<64x3xf32>
  %v17 = tfm.scale %v16 by 0.5 : tensor<64x3xf32>
  %v18 = tfm.silu %arg2 : tensor<64x3xf32>
  %v19 = tfm.add %v0, %v18 : tensor<64x3xf32>
  %v20 = tfm.add %v16, %v18 : tensor<64x3xf32>
  %v21 = tfm.silu %v19 : tensor<64x3xf32>
  %v22 = tfm.add %v10, %v16 : tensor<64x3xf32>
  %v23 = tfm.scale %v17 by 0.5 : tensor<64x3xf32>
  %v24 = tfm.silu %v11 : tensor<16xf32>
  %v25 = tfm.add %v10, %v17 : tensor<64x3xf32>
  %v26 = tfm.silu %v25 : tensor<64x3xf32>
  %v27 = tfm.silu %v20 : tensor<64x3xf32>
  %v28 = tfm.silu %v6 : tensor<16xf32>
  %v29 = tfm.silu %v10 : tensor<64x3xf32>
  %v30 = tfm.scale %v28 by 0.5 : tensor<16xf32>
  %v31 = tfm.silu %v20 : tensor<64x3xf32>
  %v32 = tfm.silu %v24 : tensor<16xf32>
  %v33 = tfm.add %v27, %v25 : tensor<64x3xf32>
  %v34 = tfm.add %v17, %arg2 : tensor<64x3xf32>
  %v35 = tfm.add %v28, %v30 : tensor<16xf32>
  %v36 = tfm.silu %v35 : tensor<16xf32>
  %v37 = tfm.add %arg1, %v30 : tensor<16xf32>
  %v38 = tfm.add %v9, %v35 : tensor<16xf32>
  %v39 = tfm.silu %v13 : tensor<16xf32>
  %v40 = tfm.add %v39, %arg1 : tensor<16xf32>
  %v41 = tfm.silu %v31 : tensor<64x3xf32>
  %v42 = tfm.add %v36, %v39 : tensor<16xf32>
  %v43 = tfm.scale %v27 by 0.5 : tensor<64x3xf32>
  %v44 = tfm.add %v17, %v0 : tensor<64x3xf32>
  %v45 = tfm.add %v43, %v26 : tensor<64x3xf32>
  %v46 = tfm.add %v32, %arg0 : tensor<16xf32>
  %v47 = tfm.add %v27, %v44 : tensor<64x3xf32>
  %v48 = tfm.scale %v27 by 0.5 : tensor<64x3xf32>
  %v49 = tfm.silu %v46 : tensor<16xf32>
  %v50 = tfm.scale %arg0 by 0.5 : tensor<16xf32>
  %v51 = tfm.scale %arg1 by 0.5 : tensor<16xf32>
  %v52 = tfm.add %v32, %v39 : tensor<16xf32>
  %v53 = tfm.silu %v39 : tensor<16xf32>
  %v54 = tfm.add %v51, %v5 : tensor<16xf32>
  %v55 = tfm.add %v27, %v26 : tensor<64x3xf32>
  %v56 = tfm.silu %v49 : tensor<16xf32>
  %v57 = tfm.silu %v46 : tensor<16xf32>
  %v58 = tfm.scale %v41 by 0.5 : tensor<64x3xf32>
  %v59 = tfm.add %v45, %v43 : tensor<64x3xf32>
  %v60 = tfm.silu %v45 : tensor<64x3xf32>
  %v61 = tfm.add %v26, %v44 : tensor<64x3xf32>
  %v62 = tfm.silu %arg0 : tensor<16xf32>
  %v63 = tfm.silu %arg1 : tensor<16xf32>
  %v64 = tfm.add %v11, %arg0 : tensor<16xf32>
  %v65 = tfm.add %v40, %v51 : tensor<16xf32>
  %v66 = tfm.add %v46, %v11 : tensor<16xf32>
  %v67 = tfm.add %v59, %v60 : tensor<64x3xf32>
  %v68 = tfm.scale %v39 by 0.5 : tensor<16xf32>
  %v69 = tfm.add %v40, %v53 : tensor<16xf32>
  %v70 = tfm.add %v38, %v65 : tensor<16xf32>
  %v71 = tfm.add %v59, %arg2 : tensor<64x3xf32>
  %v72 = tfm.silu %v39 : tensor<16xf32>
  %v73 = tfm.silu %v41 : tensor<64x3xf32>
  %v74 = tfm.add %v44, %v17 : tensor<64x3xf32>
  %v75 = tfm.scale %arg0 by 0.5 : tensor<16xf32>
  %v76 = tfm.silu %v54 : tensor<16xf32>
  %v77 = tfm.add %v54, %v57 : tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @mixed(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<64x3xf32>) attributes {dist.arena_bytes = 6784 : i64, dist.arena_max_live = 6720 : i64} {
// CHECK-NEXT: %0 = tfm.add %arg2, %arg2 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %1 = tfm.add %arg0, %arg1 {dist.arena_offsets = array<i64: 5376>} : tensor<16xf32>
// CHECK-NEXT: %2 = tfm.add %arg1, %1 {dist.arena_offsets = array<i64: 768>} : tensor<16xf32>
// CHECK-NEXT: %3 = tfm.silu %arg2 {dist.arena_offsets = array<i64: 768>} : tensor<64x3xf32>
// CHECK-NEXT: %4 = tfm.add %1, %arg0 {dist.arena_offsets = array<i64: 2304>} : tensor<16xf32>
// CHECK-NEXT: %5 = tfm.silu %arg0 {dist.arena_offsets = array<i64: 6144>} : tensor<16xf32>
// CHECK-NEXT: %6 = tfm.scale %1 by 5.000000e-01 {dist.arena_offsets = array<i64: 5376>} : tensor<16xf32>
// CHECK-NEXT: %7 = tfm.add %0, %arg2 {dist.arena_offsets = array<i64: 1536>} : tensor<64x3xf32>
// CHECK-NEXT: %8 = tfm.add %4, %arg1 {dist.arena_offsets = array<i64: 3072>} : tensor<16xf32>
// CHECK-NEXT: %9 = tfm.scale %arg0 by 5.000000e-01 {dist.arena_offsets = array<i64: 6208>} : tensor<16xf32>
// CHECK-NEXT: %10 = tfm.add %arg2, %arg2 {dist.arena_offsets = array<i64: 2304>} : tensor<64x3xf32>
// CHECK-NEXT: %11 = tfm.add %8, %6 {dist.arena_offsets = array<i64: 6272>} : tensor<16xf32>
// CHECK-NEXT: %12 = tfm.add %3, %7 {dist.arena_offsets = array<i64: 3072>} : tensor<64x3xf32>
// CHECK-NEXT: %13 = tfm.silu %arg0 {dist.arena_offsets = array<i64: 6336>} : tensor<16xf32>
// CHECK-NEXT: %14 = tfm.scale %5 by 5.000000e-01 {dist.arena_offsets = array<i64: 768>} : tensor<16xf32>
// CHECK-NEXT: %15 = tfm.silu %9 {dist.arena_offsets = array<i64: 768>} : tensor<16xf32>
// CHECK-NEXT: %16 = tfm.scale %10 by 5.000000e-01 {dist.arena_offsets = array<i64: 768>} : tensor<64x3xf32>
// CHECK-NEXT: %17 = tfm.scale %16 by 5.000000e-01 {dist.arena_offsets = array<i64: 1536>} : tensor<64x3xf32>
// CHECK-NEXT: %18 = tfm.silu %arg2 {dist.arena_offsets = array<i64: 3072>} : tensor<64x3xf32>
// CHECK-NEXT: %19 = tfm.add %0, %18 {dist.arena_offsets = array<i64: 3840>} : tensor<64x3xf32>
// CHECK-NEXT: %20 = tfm.add %16, %18 {dist.arena_offsets = array<i64: 4608>} : tensor<64x3xf32>
// CHECK-NEXT: %21 = tfm.silu %19 {dist.arena_offsets = array<i64: 3072>} : tensor<64x3xf32>
// CHECK-NEXT: %22 = tfm.add %10, %16 {dist.arena_offsets = array<i64: 3072>} : tensor<64x3xf32>
// CHECK-NEXT: %23 = tfm.scale %17 by 5.000000e-01 {dist.arena_offsets = array<i64: 768>} : tensor<64x3xf32>
// CHECK-NEXT: %24 = tfm.silu %11 {dist.arena_offsets = array<i64: 6400>} : tensor<16xf32>
// CHECK-NEXT: %25 = tfm.add %10, %17 {dist.arena_offsets = array<i64: 768>} : tensor<64x3xf32>
// CHECK-NEXT: %26 = tfm.silu %25 {dist.arena_offsets = array<i64: 3072>} : tensor<64x3xf32>
// CHECK-NEXT: %27 = tfm.silu %20 {dist.arena_offsets = array<i64: 3840>} : tensor<64x3xf32>
// CHECK-NEXT: %28 = tfm.silu %6 {dist.arena_offsets = array<i64: 6464>} : tensor<16xf32>
// CHECK-NEXT: %29 = tfm.silu %10 {dist.arena_offsets = array<i64: 5376>} : tensor<64x3xf32>
// CHECK-NEXT: %30 = tfm.scale %28 by 5.000000e-01 {dist.arena_offsets = array<i64: 5376>} : tensor<16xf32>
// CHECK-NEXT: %31 = tfm.silu %20 {dist.arena_offsets = array<i64: 2304>} : tensor<64x3xf32>
// CHECK-NEXT: %32 = tfm.silu %24 {dist.arena_offsets = array<i64: 6528>} : tensor<16xf32>
// CHECK-NEXT: %33 = tfm.add %27, %25 {dist.arena_offsets = array<i64: 4608>} : tensor<64x3xf32>
// CHECK-NEXT: %34 = tfm.add %17, %arg2 {dist.arena_offsets = array<i64: 768>} : tensor<64x3xf32>
// CHECK-NEXT: %35 = tfm.add %28, %30 {dist.arena_offsets = array<i64: 768>} : tensor<16xf32>
// CHECK-NEXT: %36 = tfm.silu %35 {dist.arena_offsets = array<i64: 4608>} : tensor<16xf32>
// CHECK-NEXT: %37 = tfm.add %arg1, %30 {dist.arena_offsets = array<i64: 832>} : tensor<16xf32>
// CHECK-NEXT: %38 = tfm.add %9, %35 {dist.arena_offsets = array<i64: 6400>} : tensor<16xf32>
// CHECK-NEXT: %39 = tfm.silu %13 {dist.arena_offsets = array<i64: 6208>} : tensor<16xf32>
// CHECK-NEXT: %40 = tfm.add %39, %arg1 {dist.arena_offsets = array<i64: 6336>} : tensor<16xf32>
// CHECK-NEXT: %41 = tfm.silu %31 {dist.arena_offsets = array<i64: 768>} : tensor<64x3xf32>
// CHECK-NEXT: %42 = tfm.add %36, %39 {dist.arena_offsets = array<i64: 2304>} : tensor<16xf32>
// CHECK-NEXT: %43 = tfm.scale %27 by 5.000000e-01 {dist.arena_offsets = array<i64: 2304>} : tensor<64x3xf32>
// CHECK-NEXT: %44 = tfm.add %17, %0 {dist.arena_offsets = array<i64: 4608>} : tensor<64x3xf32>
// CHECK-NEXT: %45 = tfm.add %43, %26 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %46 = tfm.add %32, %arg0 {dist.arena_offsets = array<i64: 6464>} : tensor<16xf32>
// CHECK-NEXT: %47 = tfm.add %27, %44 {dist.arena_offsets = array<i64: 5376>} : tensor<64x3xf32>
// CHECK-NEXT: %48 = tfm.scale %27 by 5.000000e-01 {dist.arena_offsets = array<i64: 5376>} : tensor<64x3xf32>
// CHECK-NEXT: %49 = tfm.silu %46 {dist.arena_offsets = array<i64: 6592>} : tensor<16xf32>
// CHECK-NEXT: %50 = tfm.scale %arg0 by 5.000000e-01 {dist.arena_offsets = array<i64: 5376>} : tensor<16xf32>
// CHECK-NEXT: %51 = tfm.scale %arg1 by 5.000000e-01 {dist.arena_offsets = array<i64: 6656>} : tensor<16xf32>
// CHECK-NEXT: %52 = tfm.add %32, %39 {dist.arena_offsets = array<i64: 5376>} : tensor<16xf32>
// CHECK-NEXT: %53 = tfm.silu %39 {dist.arena_offsets = array<i64: 6528>} : tensor<16xf32>
// CHECK-NEXT: %54 = tfm.add %51, %5 {dist.arena_offsets = array<i64: 6720>} : tensor<16xf32>
// CHECK-NEXT: %55 = tfm.add %27, %26 {dist.arena_offsets = array<i64: 5376>} : tensor<64x3xf32>
// CHECK-NEXT: %56 = tfm.silu %49 {dist.arena_offsets = array<i64: 3840>} : tensor<16xf32>
// CHECK-NEXT: %57 = tfm.silu %46 {dist.arena_offsets = array<i64: 5376>} : tensor<16xf32>
// CHECK-NEXT: %58 = tfm.scale %41 by 5.000000e-01 {dist.arena_offsets = array<i64: 3840>} : tensor<64x3xf32>
// CHECK-NEXT: %59 = tfm.add %45, %43 {dist.arena_offsets = array<i64: 3840>} : tensor<64x3xf32>
// CHECK-NEXT: %60 = tfm.silu %45 {dist.arena_offsets = array<i64: 2304>} : tensor<64x3xf32>
// CHECK-NEXT: %61 = tfm.add %26, %44 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %62 = tfm.silu %arg0 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %63 = tfm.silu %arg1 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %64 = tfm.add %11, %arg0 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %65 = tfm.add %40, %51 {dist.arena_offsets = array<i64: 3072>} : tensor<16xf32>
// CHECK-NEXT: %66 = tfm.add %46, %11 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %67 = tfm.add %59, %60 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %68 = tfm.scale %39 by 5.000000e-01 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %69 = tfm.add %40, %53 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %70 = tfm.add %38, %65 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %71 = tfm.add %59, %arg2 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %72 = tfm.silu %39 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %73 = tfm.silu %41 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %74 = tfm.add %44, %17 {dist.arena_offsets = array<i64: 0>} : tensor<64x3xf32>
// CHECK-NEXT: %75 = tfm.scale %arg0 by 5.000000e-01 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %76 = tfm.silu %54 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: %77 = tfm.add %54, %57 {dist.arena_offsets = array<i64: 0>} : tensor<16xf32>
// CHECK-NEXT: return

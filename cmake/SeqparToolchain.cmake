# The one place that pins the MLIR/LLVM toolchain seqpar builds against.
set(SEQPAR_LLVM_MAJOR 19)
set(SEQPAR_LLVM_PREFIX "/usr/lib/llvm-${SEQPAR_LLVM_MAJOR}" CACHE PATH
    "Prefix of the LLVM/MLIR installation")

function(seqpar_check_llvm_version)
  if(NOT LLVM_VERSION_MAJOR EQUAL SEQPAR_LLVM_MAJOR)
    message(FATAL_ERROR
      "seqpar needs MLIR/LLVM ${SEQPAR_LLVM_MAJOR}, but found "
      "${LLVM_PACKAGE_VERSION} at ${MLIR_DIR}. Install Debian's "
      "libmlir-${SEQPAR_LLVM_MAJOR}-dev (scripts/install-deps.sh) or pass "
      "-DMLIR_DIR=${SEQPAR_LLVM_PREFIX}/lib/cmake/mlir.")
  endif()
endfunction()

# Sanitizer and fuzzing builds (scripts/build-sanitized.sh configures both in
# build-asan/ with clang-19).
#
# SEQPAR_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer on every
#   target (compiler libraries, runtime, tools, unit tests). A UBSan finding
#   aborts (-fno-sanitize-recover). SEQPAR_SANITIZE_FLAGS is also what
#   sp-compile passes when it links a program, so compiled programs carry the
#   sanitizer runtimes their libsprt was built for.
# SEQPAR_FUZZ=ON (clang only): coverage instrumentation for libFuzzer
#   (-fsanitize=fuzzer-no-link) on the compiler libraries (lib/), and the
#   libFuzzer drivers in fuzz/ (-fsanitize=fuzzer).
option(SEQPAR_SANITIZE "Build with AddressSanitizer and UBSan" OFF)
option(SEQPAR_FUZZ "Build the libFuzzer drivers (clang)" OFF)

set(SEQPAR_SANITIZE_FLAGS "")
if(SEQPAR_SANITIZE)
  # Separate flags, no commas: the list is joined in a generator expression.
  set(SEQPAR_SANITIZE_FLAGS -fsanitize=address -fsanitize=undefined
                            -fno-sanitize-recover=undefined)
  add_compile_options(${SEQPAR_SANITIZE_FLAGS} -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Line tables only: symbolized traces without full debug info's cost.
    add_compile_options(-gline-tables-only)
  else()
    add_compile_options(-g1)
  endif()
  add_link_options(${SEQPAR_SANITIZE_FLAGS})
endif()

if(SEQPAR_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SEQPAR_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_CXX_COMPILER=clang++-19 (scripts/build-sanitized.sh)")
endif()

# Adds coverage instrumentation to the targets of the directories added
# between seqpar_fuzz_instrument_begin() and seqpar_fuzz_instrument_end().
macro(seqpar_fuzz_instrument_begin)
  if(SEQPAR_FUZZ)
    get_directory_property(_seqpar_saved_options COMPILE_OPTIONS)
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endmacro()

macro(seqpar_fuzz_instrument_end)
  if(SEQPAR_FUZZ)
    set_directory_properties(PROPERTIES COMPILE_OPTIONS
                             "${_seqpar_saved_options}")
  endif()
endmacro()

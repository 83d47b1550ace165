/*===- sprt/abi.h - the C declarations generated from sprt/abi.def -------===*
 *
 * The element type codes (SPRT_DTYPE_*), the argument bundles' structs
 * (sprt_attention_args), the prototype of every libsprt entry point a
 * compiled program calls, and the symbols the program defines
 * (seqpar_model_json, seqpar_step and the weak seqpar_eval), all expanded
 * from the one table in sprt/abi.def. The documented prototypes in
 * sprt/kernels.h, grad_kernels.h and runtime.h include this header first,
 * so each is checked against the table by the C++ compiler.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPRT_ABI_H
#define SPRT_ABI_H

#include <stdint.h>

#define SPRT_ABI_RESULT_VOID void
#define SPRT_ABI_RESULT_I64 int64_t
#define SPRT_ABI_LINKAGE_REQUIRED
#define SPRT_ABI_LINKAGE_WEAK __attribute__((weak))

/* The element types of the typed kernels (SPRT_DTYPE_F32, ...). */
enum {
#define SPRT_DTYPE(name, code) SPRT_DTYPE_##name = code,
#include "sprt/abi.def"
};

/* The document masks of sprt_attention_args' document_causal
 * (SPRT_DOCUMENTS_NONE, ...). */
enum {
#define SPRT_DOCUMENTS(name, code) SPRT_DOCUMENTS_##name = code,
#include "sprt/abi.def"
};

/* The argument bundles (sprt_attention_args, ...): one field per
 * KIND(name). */
#define I32(n) int32_t n;
#define I64(n) int64_t n;
#define F64(n) double n;
#define SPRT_STRUCT(name, fields)                                              \
  typedef struct name {                                                        \
    fields                                                                     \
  } name;
#include "sprt/abi.def"

#ifdef __cplusplus
extern "C" {
#endif

#define F32P(n) float *n
#define CF32P(n) const float *n
#define F32PP(n) float *const *n
#define F32PPW(n) float **n
#define CF32PP(n) const float *const *n
#define I64P(n) int64_t *n
#define CI64P(n) const int64_t *n
#define VP(n) void *n
#define CVP(n) const void *n
#define VPP(n) void *const *n
#define CVPP(n) const void *const *n
#define CHARP(n) char *n
#define CSTR(n) const char *n
#define CF64P(n) const double *n
#define CBUNDLE(type, n) const type *n
#define I32(n) int32_t n
#define I64(n) int64_t n
#define F64(n) double n
#define SPRT_FUNC(result, name, params) SPRT_ABI_RESULT_##result name params;
#define SPRT_PROGRAM_FUNC(linkage, name, params)                               \
  SPRT_ABI_LINKAGE_##linkage void name params;
#define SPRT_PROGRAM_DATA(name) extern const char name[];
#include "sprt/abi.def"

#ifdef __cplusplus
}
#endif

#undef SPRT_ABI_RESULT_VOID
#undef SPRT_ABI_RESULT_I64
#undef SPRT_ABI_LINKAGE_REQUIRED
#undef SPRT_ABI_LINKAGE_WEAK

#endif /* SPRT_ABI_H */

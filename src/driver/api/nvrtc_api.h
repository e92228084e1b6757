/* nvrtc_api.h: our declarations of the NVRTC subset numba_cuda_c calls, written from the NVRTC
 * reference; checked against the toolkit's nvrtc.h by tests/driver/test_declarations.py. */
#ifndef NUMBA_CUDA_C_NVRTC_API_H
#define NUMBA_CUDA_C_NVRTC_API_H

#include <stddef.h>

#define NVRTC_RESULT_VALUES(X)                                                                                     \
    X(NVRTC_SUCCESS, 0)                                                                                            \
    X(NVRTC_ERROR_OUT_OF_MEMORY, 1)                                                                                \
    X(NVRTC_ERROR_PROGRAM_CREATION_FAILURE, 2)                                                                     \
    X(NVRTC_ERROR_INVALID_INPUT, 3)                                                                                \
    X(NVRTC_ERROR_INVALID_PROGRAM, 4)                                                                              \
    X(NVRTC_ERROR_INVALID_OPTION, 5)                                                                               \
    X(NVRTC_ERROR_COMPILATION, 6)                                                                                  \
    X(NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, 7)                                                                    \
    X(NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION, 8)                                                        \
    X(NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION, 9)                                                          \
    X(NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID, 10)                                                                   \
    X(NVRTC_ERROR_INTERNAL_ERROR, 11)

#ifndef __NVRTC_H__ /* the declaration test includes the toolkit's nvrtc.h first */
#define NVRTC_ENUM_ENTRY(name, value) name = value,
typedef enum { NVRTC_RESULT_VALUES(NVRTC_ENUM_ENTRY) } nvrtcResult;
#undef NVRTC_ENUM_ENTRY
typedef struct _nvrtcProgram *nvrtcProgram;
#endif

#define NVRTC_FUNCTIONS(X)                                                                                         \
    X(nvrtcVersion, nvrtcVersion)                                                                                  \
    X(nvrtcGetErrorString, nvrtcGetErrorString)                                                                    \
    X(nvrtcGetNumSupportedArchs, nvrtcGetNumSupportedArchs)                                                        \
    X(nvrtcGetSupportedArchs, nvrtcGetSupportedArchs)                                                              \
    X(nvrtcCreateProgram, nvrtcCreateProgram)                                                                      \
    X(nvrtcDestroyProgram, nvrtcDestroyProgram)                                                                    \
    X(nvrtcCompileProgram, nvrtcCompileProgram)                                                                    \
    X(nvrtcGetPTXSize, nvrtcGetPTXSize)                                                                            \
    X(nvrtcGetPTX, nvrtcGetPTX)                                                                                    \
    X(nvrtcGetCUBINSize, nvrtcGetCUBINSize)                                                                        \
    X(nvrtcGetCUBIN, nvrtcGetCUBIN)                                                                                \
    X(nvrtcGetProgramLogSize, nvrtcGetProgramLogSize)                                                              \
    X(nvrtcGetProgramLog, nvrtcGetProgramLog)

typedef nvrtcResult (*PFN_nvrtcVersion)(int *major, int *minor);
typedef const char *(*PFN_nvrtcGetErrorString)(nvrtcResult result);
typedef nvrtcResult (*PFN_nvrtcGetNumSupportedArchs)(int *numArchs);
typedef nvrtcResult (*PFN_nvrtcGetSupportedArchs)(int *supportedArchs);
typedef nvrtcResult (*PFN_nvrtcCreateProgram)(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                                              const char *const *headers, const char *const *includeNames);
typedef nvrtcResult (*PFN_nvrtcDestroyProgram)(nvrtcProgram *prog);
typedef nvrtcResult (*PFN_nvrtcCompileProgram)(nvrtcProgram prog, int numOptions, const char *const *options);
typedef nvrtcResult (*PFN_nvrtcGetPTXSize)(nvrtcProgram prog, size_t *ptxSizeRet);
typedef nvrtcResult (*PFN_nvrtcGetPTX)(nvrtcProgram prog, char *ptx);
typedef nvrtcResult (*PFN_nvrtcGetCUBINSize)(nvrtcProgram prog, size_t *cubinSizeRet);
typedef nvrtcResult (*PFN_nvrtcGetCUBIN)(nvrtcProgram prog, char *cubin);
typedef nvrtcResult (*PFN_nvrtcGetProgramLogSize)(nvrtcProgram prog, size_t *logSizeRet);
typedef nvrtcResult (*PFN_nvrtcGetProgramLog)(nvrtcProgram prog, char *log);

#endif

/* cuda_api.h: our declarations of the CUDA Driver API subset numba_cuda_c calls.
 * Written from the CUDA Driver API reference; nothing here needs the CUDA toolkit.
 * tests/driver/test_declarations.py compiles this file beside the toolkit's cuda.h and
 * checks every enum value, type size and prototype against it. */
#ifndef NUMBA_CUDA_C_CUDA_API_H
#define NUMBA_CUDA_C_CUDA_API_H

#include <stddef.h>

/* CUresult values, as X(name, value). */
#define CU_RESULT_VALUES(X)                                                                                        \
    X(CUDA_SUCCESS, 0)                                                                                             \
    X(CUDA_ERROR_INVALID_VALUE, 1)                                                                                 \
    X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                                                                 \
    X(CUDA_ERROR_NOT_INITIALIZED, 3)                                                                               \
    X(CUDA_ERROR_DEINITIALIZED, 4)                                                                                 \
    X(CUDA_ERROR_PROFILER_DISABLED, 5)                                                                             \
    X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6)                                                                      \
    X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7)                                                                      \
    X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8)                                                                      \
    X(CUDA_ERROR_STUB_LIBRARY, 34)                                                                                 \
    X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36)                                                                   \
    X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46)                                                                           \
    X(CUDA_ERROR_NO_DEVICE, 100)                                                                                   \
    X(CUDA_ERROR_INVALID_DEVICE, 101)                                                                              \
    X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102)                                                                         \
    X(CUDA_ERROR_INVALID_IMAGE, 200)                                                                               \
    X(CUDA_ERROR_INVALID_CONTEXT, 201)                                                                             \
    X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202)                                                                     \
    X(CUDA_ERROR_MAP_FAILED, 205)                                                                                  \
    X(CUDA_ERROR_UNMAP_FAILED, 206)                                                                                \
    X(CUDA_ERROR_ARRAY_IS_MAPPED, 207)                                                                             \
    X(CUDA_ERROR_ALREADY_MAPPED, 208)                                                                              \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)                                                                           \
    X(CUDA_ERROR_ALREADY_ACQUIRED, 210)                                                                            \
    X(CUDA_ERROR_NOT_MAPPED, 211)                                                                                  \
    X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212)                                                                         \
    X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213)                                                                       \
    X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)                                                                           \
    X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215)                                                                           \
    X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216)                                                                      \
    X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217)                                                                     \
    X(CUDA_ERROR_INVALID_PTX, 218)                                                                                 \
    X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219)                                                                    \
    X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220)                                                                        \
    X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221)                                                                      \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)                                                                     \
    X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223)                                                                    \
    X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224)                                                                   \
    X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225)                                                                    \
    X(CUDA_ERROR_CONTAINED, 226)                                                                                   \
    X(CUDA_ERROR_INVALID_SOURCE, 300)                                                                              \
    X(CUDA_ERROR_FILE_NOT_FOUND, 301)                                                                              \
    X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302)                                                              \
    X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303)                                                                   \
    X(CUDA_ERROR_OPERATING_SYSTEM, 304)                                                                            \
    X(CUDA_ERROR_INVALID_HANDLE, 400)                                                                              \
    X(CUDA_ERROR_ILLEGAL_STATE, 401)                                                                               \
    X(CUDA_ERROR_LOSSY_QUERY, 402)                                                                                 \
    X(CUDA_ERROR_NOT_FOUND, 500)                                                                                   \
    X(CUDA_ERROR_NOT_READY, 600)                                                                                   \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                                                             \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)                                                                     \
    X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                                                                              \
    X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703)                                                               \
    X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704)                                                                 \
    X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705)                                                                     \
    X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708)                                                                      \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709)                                                                        \
    X(CUDA_ERROR_ASSERT, 710)                                                                                      \
    X(CUDA_ERROR_TOO_MANY_PEERS, 711)                                                                              \
    X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712)                                                              \
    X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713)                                                                  \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)                                                                        \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)                                                                         \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                                                          \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)                                                                       \
    X(CUDA_ERROR_INVALID_PC, 718)                                                                                  \
    X(CUDA_ERROR_LAUNCH_FAILED, 719)                                                                               \
    X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720)                                                                \
    X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721)                                                                          \
    X(CUDA_ERROR_NOT_PERMITTED, 800)                                                                               \
    X(CUDA_ERROR_NOT_SUPPORTED, 801)                                                                               \
    X(CUDA_ERROR_SYSTEM_NOT_READY, 802)                                                                            \
    X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)                                                                      \
    X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804)                                                              \
    X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805)                                                                       \
    X(CUDA_ERROR_MPS_RPC_FAILURE, 806)                                                                             \
    X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807)                                                                        \
    X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808)                                                                     \
    X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809)                                                                 \
    X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810)                                                                       \
    X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811)                                                                           \
    X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812)                                                                        \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900)                                                                  \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901)                                                                  \
    X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902)                                                                        \
    X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903)                                                                    \
    X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904)                                                                     \
    X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905)                                                                    \
    X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906)                                                                     \
    X(CUDA_ERROR_CAPTURED_EVENT, 907)                                                                              \
    X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908)                                                                 \
    X(CUDA_ERROR_TIMEOUT, 909)                                                                                     \
    X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910)                                                                   \
    X(CUDA_ERROR_EXTERNAL_DEVICE, 911)                                                                             \
    X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912)                                                                        \
    X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913)                                                                         \
    X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914)                                                                       \
    X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915)                                                              \
    X(CUDA_ERROR_KEY_ROTATION, 916)                                                                                \
    X(CUDA_ERROR_UNKNOWN, 999)

/* CUdevice_attribute values without their CU_DEVICE_ATTRIBUTE_ prefix: the names
 * numba exposes as Device attributes (device.MAX_THREADS_PER_BLOCK, ...). */
#define CU_DEVICE_ATTRIBUTE_VALUES(X)                                                                              \
    X(MAX_THREADS_PER_BLOCK, 1)                                                                                    \
    X(MAX_BLOCK_DIM_X, 2)                                                                                          \
    X(MAX_BLOCK_DIM_Y, 3)                                                                                          \
    X(MAX_BLOCK_DIM_Z, 4)                                                                                          \
    X(MAX_GRID_DIM_X, 5)                                                                                           \
    X(MAX_GRID_DIM_Y, 6)                                                                                           \
    X(MAX_GRID_DIM_Z, 7)                                                                                           \
    X(MAX_SHARED_MEMORY_PER_BLOCK, 8)                                                                              \
    X(SHARED_MEMORY_PER_BLOCK, 8)                                                                                  \
    X(TOTAL_CONSTANT_MEMORY, 9)                                                                                    \
    X(WARP_SIZE, 10)                                                                                               \
    X(MAX_PITCH, 11)                                                                                               \
    X(MAX_REGISTERS_PER_BLOCK, 12)                                                                                 \
    X(REGISTERS_PER_BLOCK, 12)                                                                                     \
    X(CLOCK_RATE, 13)                                                                                              \
    X(TEXTURE_ALIGNMENT, 14)                                                                                       \
    X(GPU_OVERLAP, 15)                                                                                             \
    X(MULTIPROCESSOR_COUNT, 16)                                                                                    \
    X(KERNEL_EXEC_TIMEOUT, 17)                                                                                     \
    X(INTEGRATED, 18)                                                                                              \
    X(CAN_MAP_HOST_MEMORY, 19)                                                                                     \
    X(COMPUTE_MODE, 20)                                                                                            \
    X(MAXIMUM_TEXTURE1D_WIDTH, 21)                                                                                 \
    X(MAXIMUM_TEXTURE2D_WIDTH, 22)                                                                                 \
    X(MAXIMUM_TEXTURE2D_HEIGHT, 23)                                                                                \
    X(MAXIMUM_TEXTURE3D_WIDTH, 24)                                                                                 \
    X(MAXIMUM_TEXTURE3D_HEIGHT, 25)                                                                                \
    X(MAXIMUM_TEXTURE3D_DEPTH, 26)                                                                                 \
    X(MAXIMUM_TEXTURE2D_LAYERED_WIDTH, 27)                                                                         \
    X(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, 28)                                                                        \
    X(MAXIMUM_TEXTURE2D_LAYERED_LAYERS, 29)                                                                        \
    X(MAXIMUM_TEXTURE2D_ARRAY_WIDTH, 27)                                                                           \
    X(MAXIMUM_TEXTURE2D_ARRAY_HEIGHT, 28)                                                                          \
    X(MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES, 29)                                                                       \
    X(SURFACE_ALIGNMENT, 30)                                                                                       \
    X(CONCURRENT_KERNELS, 31)                                                                                      \
    X(ECC_ENABLED, 32)                                                                                             \
    X(PCI_BUS_ID, 33)                                                                                              \
    X(PCI_DEVICE_ID, 34)                                                                                           \
    X(TCC_DRIVER, 35)                                                                                              \
    X(MEMORY_CLOCK_RATE, 36)                                                                                       \
    X(GLOBAL_MEMORY_BUS_WIDTH, 37)                                                                                 \
    X(L2_CACHE_SIZE, 38)                                                                                           \
    X(MAX_THREADS_PER_MULTIPROCESSOR, 39)                                                                          \
    X(ASYNC_ENGINE_COUNT, 40)                                                                                      \
    X(UNIFIED_ADDRESSING, 41)                                                                                      \
    X(MAXIMUM_TEXTURE1D_LAYERED_WIDTH, 42)                                                                         \
    X(MAXIMUM_TEXTURE1D_LAYERED_LAYERS, 43)                                                                        \
    X(CAN_TEX2D_GATHER, 44)                                                                                        \
    X(MAXIMUM_TEXTURE2D_GATHER_WIDTH, 45)                                                                          \
    X(MAXIMUM_TEXTURE2D_GATHER_HEIGHT, 46)                                                                         \
    X(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, 47)                                                                       \
    X(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE, 48)                                                                      \
    X(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE, 49)                                                                       \
    X(PCI_DOMAIN_ID, 50)                                                                                           \
    X(TEXTURE_PITCH_ALIGNMENT, 51)                                                                                 \
    X(MAXIMUM_TEXTURECUBEMAP_WIDTH, 52)                                                                            \
    X(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, 53)                                                                    \
    X(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS, 54)                                                                   \
    X(MAXIMUM_SURFACE1D_WIDTH, 55)                                                                                 \
    X(MAXIMUM_SURFACE2D_WIDTH, 56)                                                                                 \
    X(MAXIMUM_SURFACE2D_HEIGHT, 57)                                                                                \
    X(MAXIMUM_SURFACE3D_WIDTH, 58)                                                                                 \
    X(MAXIMUM_SURFACE3D_HEIGHT, 59)                                                                                \
    X(MAXIMUM_SURFACE3D_DEPTH, 60)                                                                                 \
    X(MAXIMUM_SURFACE1D_LAYERED_WIDTH, 61)                                                                         \
    X(MAXIMUM_SURFACE1D_LAYERED_LAYERS, 62)                                                                        \
    X(MAXIMUM_SURFACE2D_LAYERED_WIDTH, 63)                                                                         \
    X(MAXIMUM_SURFACE2D_LAYERED_HEIGHT, 64)                                                                        \
    X(MAXIMUM_SURFACE2D_LAYERED_LAYERS, 65)                                                                        \
    X(MAXIMUM_SURFACECUBEMAP_WIDTH, 66)                                                                            \
    X(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, 67)                                                                    \
    X(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS, 68)                                                                   \
    X(MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 69)                                                                          \
    X(MAXIMUM_TEXTURE2D_LINEAR_WIDTH, 70)                                                                          \
    X(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, 71)                                                                         \
    X(MAXIMUM_TEXTURE2D_LINEAR_PITCH, 72)                                                                          \
    X(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, 73)                                                                       \
    X(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT, 74)                                                                      \
    X(COMPUTE_CAPABILITY_MAJOR, 75)                                                                                \
    X(COMPUTE_CAPABILITY_MINOR, 76)                                                                                \
    X(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH, 77)                                                                       \
    X(STREAM_PRIORITIES_SUPPORTED, 78)                                                                             \
    X(GLOBAL_L1_CACHE_SUPPORTED, 79)                                                                               \
    X(LOCAL_L1_CACHE_SUPPORTED, 80)                                                                                \
    X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)                                                                    \
    X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82)                                                                        \
    X(MANAGED_MEMORY, 83)                                                                                          \
    X(MULTI_GPU_BOARD, 84)                                                                                         \
    X(MULTI_GPU_BOARD_GROUP_ID, 85)                                                                                \
    X(HOST_NATIVE_ATOMIC_SUPPORTED, 86)                                                                            \
    X(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 87)                                                                   \
    X(PAGEABLE_MEMORY_ACCESS, 88)                                                                                  \
    X(CONCURRENT_MANAGED_ACCESS, 89)                                                                               \
    X(COMPUTE_PREEMPTION_SUPPORTED, 90)                                                                            \
    X(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 91)                                                                 \
    X(COOPERATIVE_LAUNCH, 95)                                                                                      \
    X(COOPERATIVE_MULTI_DEVICE_LAUNCH, 96)                                                                         \
    X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)                                                                       \
    X(CAN_FLUSH_REMOTE_WRITES, 98)                                                                                 \
    X(HOST_REGISTER_SUPPORTED, 99)                                                                                 \
    X(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, 100)                                                           \
    X(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, 101)                                                                    \
    X(VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED, 102)                                                                   \
    X(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 102)                                                                    \
    X(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 103)                                                            \
    X(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, 104)                                                                     \
    X(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED, 105)                                                                 \
    X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106)                                                                          \
    X(GENERIC_COMPRESSION_SUPPORTED, 107)                                                                          \
    X(MAX_PERSISTING_L2_CACHE_SIZE, 108)                                                                           \
    X(MAX_ACCESS_POLICY_WINDOW_SIZE, 109)                                                                          \
    X(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 110)                                                                \
    X(RESERVED_SHARED_MEMORY_PER_BLOCK, 111)                                                                       \
    X(SPARSE_CUDA_ARRAY_SUPPORTED, 112)                                                                            \
    X(READ_ONLY_HOST_REGISTER_SUPPORTED, 113)                                                                      \
    X(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 114)                                                                   \
    X(MEMORY_POOLS_SUPPORTED, 115)                                                                                 \
    X(GPU_DIRECT_RDMA_SUPPORTED, 116)                                                                              \
    X(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 117)                                                                   \
    X(GPU_DIRECT_RDMA_WRITES_ORDERING, 118)                                                                        \
    X(MEMPOOL_SUPPORTED_HANDLE_TYPES, 119)                                                                         \
    X(CLUSTER_LAUNCH, 120)                                                                                         \
    X(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 121)                                                                  \
    X(CAN_USE_64_BIT_STREAM_MEM_OPS, 122)                                                                          \
    X(CAN_USE_STREAM_WAIT_VALUE_NOR, 123)                                                                          \
    X(DMA_BUF_SUPPORTED, 124)                                                                                      \
    X(IPC_EVENT_SUPPORTED, 125)                                                                                    \
    X(MEM_SYNC_DOMAIN_COUNT, 126)                                                                                  \
    X(TENSOR_MAP_ACCESS_SUPPORTED, 127)                                                                            \
    X(HANDLE_TYPE_FABRIC_SUPPORTED, 128)                                                                           \
    X(UNIFIED_FUNCTION_POINTERS, 129)                                                                              \
    X(NUMA_CONFIG, 130)                                                                                            \
    X(NUMA_ID, 131)                                                                                                \
    X(MULTICAST_SUPPORTED, 132)                                                                                    \
    X(MPS_ENABLED, 133)                                                                                            \
    X(HOST_NUMA_ID, 134)                                                                                           \
    X(D3D12_CIG_SUPPORTED, 135)                                                                                    \
    X(MEM_DECOMPRESS_ALGORITHM_MASK, 136)                                                                          \
    X(MEM_DECOMPRESS_MAXIMUM_LENGTH, 137)                                                                          \
    X(VULKAN_CIG_SUPPORTED, 138)                                                                                   \
    X(GPU_PCI_DEVICE_ID, 139)                                                                                      \
    X(GPU_PCI_SUBSYSTEM_ID, 140)                                                                                   \
    X(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 141)                                                          \
    X(HOST_NUMA_MEMORY_POOLS_SUPPORTED, 142)                                                                       \
    X(HOST_NUMA_MULTINODE_IPC_SUPPORTED, 143)                                                                      \
    X(HOST_MEMORY_POOLS_SUPPORTED, 144)                                                                            \
    X(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 145)                                                               \
    X(HOST_ALLOC_DMA_BUF_SUPPORTED, 146)                                                                           \
    X(ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, 147)

/* Flags and special values, as X(name, value). */
#define CU_FLAG_VALUES(X)                                                                                          \
    X(CU_STREAM_DEFAULT, 0x0)                                                                                      \
    X(CU_STREAM_NON_BLOCKING, 0x1)                                                                                 \
    X(CU_STREAM_CAPTURE_MODE_GLOBAL, 0)                                                                            \
    X(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, 1)                                                                      \
    X(CU_STREAM_CAPTURE_MODE_RELAXED, 2)                                                                           \
    X(CU_STREAM_CAPTURE_STATUS_NONE, 0)                                                                            \
    X(CU_STREAM_CAPTURE_STATUS_ACTIVE, 1)                                                                          \
    X(CU_STREAM_CAPTURE_STATUS_INVALIDATED, 2)                                                                     \
    X(CU_GRAPH_EXEC_UPDATE_SUCCESS, 0)                                                                             \
    X(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, 2)                                                              \
    X(CU_EVENT_DEFAULT, 0x0)                                                                                       \
    X(CU_EVENT_BLOCKING_SYNC, 0x1)                                                                                 \
    X(CU_EVENT_DISABLE_TIMING, 0x2)                                                                                \
    X(CU_EVENT_INTERPROCESS, 0x4)                                                                                  \
    X(CU_MEMHOSTALLOC_PORTABLE, 0x01)                                                                              \
    X(CU_MEMHOSTALLOC_DEVICEMAP, 0x02)                                                                             \
    X(CU_MEMHOSTALLOC_WRITECOMBINED, 0x04)                                                                         \
    X(CU_MEMHOSTREGISTER_PORTABLE, 0x01)                                                                           \
    X(CU_MEMHOSTREGISTER_DEVICEMAP, 0x02)                                                                          \
    X(CU_MEM_ATTACH_GLOBAL, 0x1)                                                                                   \
    X(CU_MEM_ATTACH_HOST, 0x2)                                                                                     \
    X(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, 0x1)                                                                     \
    X(CU_POINTER_ATTRIBUTE_CONTEXT, 1)                                                                             \
    X(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 2)                                                                         \
    X(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, 3)                                                                      \
    X(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, 9)                                                                      \
    X(CU_MEMORYTYPE_HOST, 0x01)                                                                                    \
    X(CU_MEMORYTYPE_DEVICE, 0x02)                                                                                  \
    X(CU_MEMORYTYPE_UNIFIED, 0x04)                                                                                 \
    X(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)                                                                  \
    X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)                                                                      \
    X(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, 2)                                                                       \
    X(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 3)                                                                       \
    X(CU_FUNC_ATTRIBUTE_NUM_REGS, 4)                                                                               \
    X(CU_FUNC_ATTRIBUTE_PTX_VERSION, 5)                                                                            \
    X(CU_FUNC_ATTRIBUTE_BINARY_VERSION, 6)                                                                         \
    X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)                                                          \
    X(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 9)                                                       \
    X(CU_LIMIT_STACK_SIZE, 0)                                                                                      \
    X(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 4)                                                                        \
    X(CU_JIT_MAX_REGISTERS, 0)                                                                                     \
    X(CU_JIT_INFO_LOG_BUFFER, 3)                                                                                   \
    X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, 4)                                                                        \
    X(CU_JIT_ERROR_LOG_BUFFER, 5)                                                                                  \
    X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)                                                                       \
    X(CU_JIT_TARGET_FROM_CUCONTEXT, 8)                                                                             \
    X(CU_JIT_TARGET, 9)                                                                                            \
    X(CU_JIT_LOG_VERBOSE, 12)                                                                                      \
    X(CU_JIT_GENERATE_LINE_INFO, 13)                                                                               \
    X(CU_JIT_INPUT_CUBIN, 0)                                                                                       \
    X(CU_JIT_INPUT_PTX, 1)                                                                                         \
    X(CU_JIT_INPUT_FATBINARY, 2)                                                                                   \
    X(CU_JIT_INPUT_OBJECT, 3)                                                                                      \
    X(CU_JIT_INPUT_LIBRARY, 4)

#define CU_IPC_HANDLE_SIZE 64

#ifndef __cuda_cuda_h__ /* the declaration test includes the toolkit's cuda.h first */
#define CU_ENUM_ENTRY(name, value) name = value,
typedef enum cudaError_enum { CU_RESULT_VALUES(CU_ENUM_ENTRY) } CUresult;
#define CU_ATTRIBUTE_ENTRY(name, value) CU_DEVICE_ATTRIBUTE_##name = value,
typedef enum CUdevice_attribute_enum { CU_DEVICE_ATTRIBUTE_VALUES(CU_ATTRIBUTE_ENTRY) } CUdevice_attribute;
enum { CU_FLAG_VALUES(CU_ENUM_ENTRY) };
#undef CU_ENUM_ENTRY
#undef CU_ATTRIBUTE_ENTRY
typedef int CUpointer_attribute;
typedef int CUfunction_attribute;
typedef int CUlimit;
typedef int CUjit_option;
typedef int CUjitInputType;
typedef struct CUlinkState_st *CUlinkState;
typedef int CUmemPool_attribute;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef int CUstreamCaptureMode;
typedef int CUstreamCaptureStatus;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
typedef int CUgraphExecUpdateResult;
typedef struct CUgraphExecUpdateResultInfo_st {
    CUgraphExecUpdateResult result;
    CUgraphNode errorNode;
    CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUlib_st *CUlibrary;
typedef struct CUfunc_st *CUfunction;
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;
typedef struct CUipcMemHandle_st {
    char reserved[CU_IPC_HANDLE_SIZE];
} CUipcMemHandle;
typedef void (*CUstreamCallback)(CUstream stream, CUresult status, void *userData);

/* The two special stream handles of the Driver API (cuda.h: CU_STREAM_LEGACY, CU_STREAM_PER_THREAD). */
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)
#endif

/* Every entry point we call: X(field, symbol). The symbol is the versioned name that cuda.h
 * maps the plain name to; the loader falls back to the plain name for drivers that predate it. */
#define CU_REQUIRED_FUNCTIONS(X)                                                                                   \
    X(cuInit, cuInit)                                                                                              \
    X(cuDriverGetVersion, cuDriverGetVersion)                                                                      \
    X(cuGetErrorName, cuGetErrorName)                                                                              \
    X(cuGetErrorString, cuGetErrorString)                                                                          \
    X(cuDeviceGetCount, cuDeviceGetCount)                                                                          \
    X(cuDeviceGet, cuDeviceGet)                                                                                    \
    X(cuDeviceGetName, cuDeviceGetName)                                                                            \
    X(cuDeviceGetAttribute, cuDeviceGetAttribute)                                                                  \
    X(cuDeviceTotalMem, cuDeviceTotalMem_v2)                                                                       \
    X(cuDeviceGetUuid, cuDeviceGetUuid_v2)                                                                         \
    X(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId)                                                                    \
    X(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer)                                                                \
    X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)                                                          \
    X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2)                                                     \
    X(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset_v2)                                                         \
    X(cuCtxGetCurrent, cuCtxGetCurrent)                                                                            \
    X(cuCtxSetCurrent, cuCtxSetCurrent)                                                                            \
    X(cuCtxPushCurrent, cuCtxPushCurrent_v2)                                                                       \
    X(cuCtxPopCurrent, cuCtxPopCurrent_v2)                                                                         \
    X(cuCtxGetDevice, cuCtxGetDevice)                                                                              \
    X(cuCtxSynchronize, cuCtxSynchronize)                                                                          \
    X(cuCtxEnablePeerAccess, cuCtxEnablePeerAccess)                                                                \
    X(cuMemGetInfo, cuMemGetInfo_v2)                                                                               \
    X(cuProfilerStart, cuProfilerStart)                                                                            \
    X(cuProfilerStop, cuProfilerStop)                                                                              \
    X(cuStreamCreate, cuStreamCreate)                                                                              \
    X(cuStreamDestroy, cuStreamDestroy_v2)                                                                         \
    X(cuStreamSynchronize, cuStreamSynchronize)                                                                    \
    X(cuStreamQuery, cuStreamQuery)                                                                                \
    X(cuStreamWaitEvent, cuStreamWaitEvent)                                                                        \
    X(cuStreamAddCallback, cuStreamAddCallback)                                                                    \
    X(cuStreamGetCtx, cuStreamGetCtx)                                                                              \
    X(cuEventCreate, cuEventCreate)                                                                                \
    X(cuEventDestroy, cuEventDestroy_v2)                                                                           \
    X(cuEventRecord, cuEventRecord)                                                                                \
    X(cuEventQuery, cuEventQuery)                                                                                  \
    X(cuEventSynchronize, cuEventSynchronize)                                                                      \
    X(cuEventElapsedTime, cuEventElapsedTime_v2)                                                                   \
    X(cuMemAlloc, cuMemAlloc_v2)                                                                                   \
    X(cuMemFree, cuMemFree_v2)                                                                                     \
    X(cuMemcpyHtoD, cuMemcpyHtoD_v2)                                                                               \
    X(cuMemcpyDtoH, cuMemcpyDtoH_v2)                                                                               \
    X(cuMemcpyDtoD, cuMemcpyDtoD_v2)                                                                               \
    X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2)                                                                     \
    X(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2)                                                                     \
    X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2)                                                                     \
    X(cuMemcpyPeer, cuMemcpyPeer)                                                                                  \
    X(cuMemcpyPeerAsync, cuMemcpyPeerAsync)                                                                        \
    X(cuMemsetD8, cuMemsetD8_v2)                                                                                   \
    X(cuMemsetD8Async, cuMemsetD8Async)                                                                            \
    X(cuMemsetD16Async, cuMemsetD16Async)                                                                          \
    X(cuMemsetD32Async, cuMemsetD32Async)                                                                          \
    X(cuMemHostAlloc, cuMemHostAlloc)                                                                              \
    X(cuMemFreeHost, cuMemFreeHost)                                                                                \
    X(cuMemHostRegister, cuMemHostRegister_v2)                                                                     \
    X(cuMemHostUnregister, cuMemHostUnregister)                                                                    \
    X(cuMemHostGetDevicePointer, cuMemHostGetDevicePointer_v2)                                                     \
    X(cuMemAllocManaged, cuMemAllocManaged)                                                                        \
    X(cuPointerGetAttribute, cuPointerGetAttribute)                                                                \
    X(cuMemGetAddressRange, cuMemGetAddressRange_v2)                                                               \
    X(cuIpcGetMemHandle, cuIpcGetMemHandle)                                                                        \
    X(cuIpcOpenMemHandle, cuIpcOpenMemHandle_v2)                                                                   \
    X(cuIpcCloseMemHandle, cuIpcCloseMemHandle)                                                                    \
    X(cuModuleLoadData, cuModuleLoadData)                                                                          \
    X(cuModuleUnload, cuModuleUnload)                                                                              \
    X(cuModuleGetFunction, cuModuleGetFunction)                                                                    \
    X(cuFuncGetAttribute, cuFuncGetAttribute)                                                                      \
    X(cuFuncSetAttribute, cuFuncSetAttribute)                                                                      \
    X(cuLaunchKernel, cuLaunchKernel)

/* Entry points of newer drivers: NULL where the driver lacks them; callers check. */
#define CU_OPTIONAL_FUNCTIONS(X)                                                                                   \
    X(cuMemAllocAsync, cuMemAllocAsync)                                                                            \
    X(cuMemFreeAsync, cuMemFreeAsync)                                                                              \
    X(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool)                                                        \
    X(cuMemPoolSetAttribute, cuMemPoolSetAttribute)                                                                \
    X(cuFuncGetParamInfo, cuFuncGetParamInfo)                                                                      \
    X(cuLinkCreate, cuLinkCreate_v2)                                                                               \
    X(cuLinkAddData, cuLinkAddData_v2)                                                                             \
    X(cuLinkAddFile, cuLinkAddFile_v2)                                                                             \
    X(cuLinkComplete, cuLinkComplete)                                                                              \
    X(cuLinkDestroy, cuLinkDestroy)                                                                                \
    X(cuLibraryGetModule, cuLibraryGetModule)                                                                      \
    X(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel)                                                        \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor)                    \
    X(cuCtxGetLimit, cuCtxGetLimit)                                                                                \
    X(cuCtxSetLimit, cuCtxSetLimit)                                                                                \
    X(cuModuleGetGlobal, cuModuleGetGlobal_v2)                                                                     \
    X(cuStreamBeginCapture, cuStreamBeginCapture_v2)                                                               \
    X(cuStreamEndCapture, cuStreamEndCapture)                                                                      \
    X(cuStreamIsCapturing, cuStreamIsCapturing)                                                                    \
    X(cuGraphInstantiate, cuGraphInstantiateWithFlags)                                                             \
    X(cuGraphLaunch, cuGraphLaunch)                                                                                \
    X(cuGraphUpload, cuGraphUpload)                                                                                \
    X(cuGraphDestroy, cuGraphDestroy)                                                                              \
    X(cuGraphExecDestroy, cuGraphExecDestroy)                                                                      \
    X(cuGraphGetNodes, cuGraphGetNodes)                                                                            \
    X(cuGraphExecUpdate_v2, cuGraphExecUpdate_v2)

/* Prototypes, one function-pointer type per entry point. */
typedef CUresult (*PFN_cuInit)(unsigned int Flags);
typedef CUresult (*PFN_cuDriverGetVersion)(int *driverVersion);
typedef CUresult (*PFN_cuGetErrorName)(CUresult error, const char **pStr);
typedef CUresult (*PFN_cuGetErrorString)(CUresult error, const char **pStr);
typedef CUresult (*PFN_cuDeviceGetCount)(int *count);
typedef CUresult (*PFN_cuDeviceGet)(CUdevice *device, int ordinal);
typedef CUresult (*PFN_cuDeviceGetName)(char *name, int len, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
typedef CUresult (*PFN_cuDeviceTotalMem)(size_t *bytes, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetUuid)(CUuuid *uuid, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetPCIBusId)(char *pciBusId, int len, CUdevice dev);
typedef CUresult (*PFN_cuDeviceCanAccessPeer)(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
typedef CUresult (*PFN_cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
typedef CUresult (*PFN_cuDevicePrimaryCtxRelease)(CUdevice dev);
typedef CUresult (*PFN_cuDevicePrimaryCtxReset)(CUdevice dev);
typedef CUresult (*PFN_cuCtxGetCurrent)(CUcontext *pctx);
typedef CUresult (*PFN_cuCtxSetCurrent)(CUcontext ctx);
typedef CUresult (*PFN_cuCtxPushCurrent)(CUcontext ctx);
typedef CUresult (*PFN_cuCtxPopCurrent)(CUcontext *pctx);
typedef CUresult (*PFN_cuCtxGetDevice)(CUdevice *device);
typedef CUresult (*PFN_cuCtxSynchronize)(void);
typedef CUresult (*PFN_cuCtxEnablePeerAccess)(CUcontext peerContext, unsigned int Flags);
typedef CUresult (*PFN_cuMemGetInfo)(size_t *free, size_t *total);
typedef CUresult (*PFN_cuProfilerStart)(void);
typedef CUresult (*PFN_cuProfilerStop)(void);
typedef CUresult (*PFN_cuStreamCreate)(CUstream *phStream, unsigned int Flags);
typedef CUresult (*PFN_cuStreamDestroy)(CUstream hStream);
typedef CUresult (*PFN_cuStreamSynchronize)(CUstream hStream);
typedef CUresult (*PFN_cuStreamQuery)(CUstream hStream);
typedef CUresult (*PFN_cuStreamWaitEvent)(CUstream hStream, CUevent hEvent, unsigned int Flags);
typedef CUresult (*PFN_cuStreamAddCallback)(CUstream hStream, CUstreamCallback callback, void *userData,
                                            unsigned int flags);
typedef CUresult (*PFN_cuStreamGetCtx)(CUstream hStream, CUcontext *pctx);
typedef CUresult (*PFN_cuEventCreate)(CUevent *phEvent, unsigned int Flags);
typedef CUresult (*PFN_cuEventDestroy)(CUevent hEvent);
typedef CUresult (*PFN_cuEventRecord)(CUevent hEvent, CUstream hStream);
typedef CUresult (*PFN_cuEventQuery)(CUevent hEvent);
typedef CUresult (*PFN_cuEventSynchronize)(CUevent hEvent);
typedef CUresult (*PFN_cuEventElapsedTime)(float *pMilliseconds, CUevent hStart, CUevent hEnd);
typedef CUresult (*PFN_cuMemAlloc)(CUdeviceptr *dptr, size_t bytesize);
typedef CUresult (*PFN_cuMemFree)(CUdeviceptr dptr);
typedef CUresult (*PFN_cuMemcpyHtoD)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
typedef CUresult (*PFN_cuMemcpyDtoH)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
typedef CUresult (*PFN_cuMemcpyDtoD)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
typedef CUresult (*PFN_cuMemcpyHtoDAsync)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                          CUstream hStream);
typedef CUresult (*PFN_cuMemcpyDtoHAsync)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
typedef CUresult (*PFN_cuMemcpyDtoDAsync)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                          CUstream hStream);
typedef CUresult (*PFN_cuMemcpyPeer)(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                     CUcontext srcContext, size_t ByteCount);
typedef CUresult (*PFN_cuMemcpyPeerAsync)(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                          CUcontext srcContext, size_t ByteCount, CUstream hStream);
typedef CUresult (*PFN_cuMemsetD8)(CUdeviceptr dstDevice, unsigned char uc, size_t N);
typedef CUresult (*PFN_cuMemsetD8Async)(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
typedef CUresult (*PFN_cuMemsetD16Async)(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream);
typedef CUresult (*PFN_cuMemsetD32Async)(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
typedef CUresult (*PFN_cuMemHostAlloc)(void **pp, size_t bytesize, unsigned int Flags);
typedef CUresult (*PFN_cuMemFreeHost)(void *p);
typedef CUresult (*PFN_cuMemHostRegister)(void *p, size_t bytesize, unsigned int Flags);
typedef CUresult (*PFN_cuMemHostUnregister)(void *p);
typedef CUresult (*PFN_cuMemHostGetDevicePointer)(CUdeviceptr *pdptr, void *p, unsigned int Flags);
typedef CUresult (*PFN_cuMemAllocManaged)(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
typedef CUresult (*PFN_cuPointerGetAttribute)(void *data, CUpointer_attribute attribute, CUdeviceptr ptr);
typedef CUresult (*PFN_cuMemGetAddressRange)(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
typedef CUresult (*PFN_cuIpcGetMemHandle)(CUipcMemHandle *pHandle, CUdeviceptr dptr);
typedef CUresult (*PFN_cuIpcOpenMemHandle)(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags);
typedef CUresult (*PFN_cuIpcCloseMemHandle)(CUdeviceptr dptr);
typedef CUresult (*PFN_cuModuleLoadData)(CUmodule *module, const void *image);
typedef CUresult (*PFN_cuModuleUnload)(CUmodule hmod);
typedef CUresult (*PFN_cuModuleGetFunction)(CUfunction *hfunc, CUmodule hmod, const char *name);
typedef CUresult (*PFN_cuFuncGetAttribute)(int *pi, CUfunction_attribute attrib, CUfunction hfunc);
typedef CUresult (*PFN_cuFuncSetAttribute)(CUfunction hfunc, CUfunction_attribute attrib, int value);
typedef CUresult (*PFN_cuLaunchKernel)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams, void **extra);
typedef CUresult (*PFN_cuMemAllocAsync)(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
typedef CUresult (*PFN_cuMemFreeAsync)(CUdeviceptr dptr, CUstream hStream);
typedef CUresult (*PFN_cuDeviceGetDefaultMemPool)(CUmemoryPool *pool_out, CUdevice dev);
typedef CUresult (*PFN_cuMemPoolSetAttribute)(CUmemoryPool pool, CUmemPool_attribute attr, void *value);
typedef CUresult (*PFN_cuCtxGetLimit)(size_t *pvalue, CUlimit limit);
typedef CUresult (*PFN_cuCtxSetLimit)(CUlimit limit, size_t value);
typedef CUresult (*PFN_cuFuncGetParamInfo)(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                           size_t *paramSize);
typedef CUresult (*PFN_cuLinkCreate)(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                     CUlinkState *stateOut);
typedef CUresult (*PFN_cuLinkAddData)(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                      const char *name, unsigned int numOptions, CUjit_option *options,
                                      void **optionValues);
typedef CUresult (*PFN_cuLinkAddFile)(CUlinkState state, CUjitInputType type, const char *path,
                                      unsigned int numOptions, CUjit_option *options, void **optionValues);
typedef CUresult (*PFN_cuLinkComplete)(CUlinkState state, void **cubinOut, size_t *sizeOut);
typedef CUresult (*PFN_cuLinkDestroy)(CUlinkState state);
typedef CUresult (*PFN_cuLibraryGetModule)(CUmodule *pMod, CUlibrary library);
typedef CUresult (*PFN_cuModuleGetGlobal)(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name);
typedef CUresult (*PFN_cuStreamBeginCapture)(CUstream hStream, CUstreamCaptureMode mode);
typedef CUresult (*PFN_cuStreamEndCapture)(CUstream hStream, CUgraph *phGraph);
typedef CUresult (*PFN_cuStreamIsCapturing)(CUstream hStream, CUstreamCaptureStatus *captureStatus);
typedef CUresult (*PFN_cuGraphInstantiate)(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags);
typedef CUresult (*PFN_cuGraphLaunch)(CUgraphExec hGraphExec, CUstream hStream);
typedef CUresult (*PFN_cuGraphUpload)(CUgraphExec hGraphExec, CUstream hStream);
typedef CUresult (*PFN_cuGraphDestroy)(CUgraph hGraph);
typedef CUresult (*PFN_cuGraphExecDestroy)(CUgraphExec hGraphExec);
typedef CUresult (*PFN_cuGraphGetNodes)(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes);
typedef CUresult (*PFN_cuGraphExecUpdate_v2)(CUgraphExec hGraphExec, CUgraph hGraph,
                                             CUgraphExecUpdateResultInfo *resultInfo);
typedef CUresult (*PFN_cuLaunchCooperativeKernel)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                  unsigned int gridDimZ, unsigned int blockDimX,
                                                  unsigned int blockDimY, unsigned int blockDimZ,
                                                  unsigned int sharedMemBytes, CUstream hStream,
                                                  void **kernelParams);
typedef CUresult (*PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *numBlocks, CUfunction func, int blockSize,
                                                                    size_t dynamicSMemSize);

#endif

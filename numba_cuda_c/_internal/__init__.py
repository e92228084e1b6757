"""numba-cuda's generated bindings of CUDA headers live in numba.cuda._internal; programs import FP8 from there
(`from numba.cuda._internal.cuda_fp8 import fp8_e4m3`), so under the alias that name finds ours (cuda_fp8)."""

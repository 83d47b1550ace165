# The CUDA compute backend (runtime/cuda, sprt_cuda) is built whenever a CUDA
# compiler and the CUDA toolkit are found (SEQPAR_ENABLE_CUDA=ON, the default,
# means auto-detect) and skipped cleanly otherwise. SEQPAR_HAVE_CUDA tells the
# rest of the build whether it is there. Sanitizer builds turn it off (nvcc's
# device code is not instrumented and ASan's interception of cudaMalloc'd
# memory is meaningless).
#
# Code for sm_90 (H100 / H200) plus PTX for later architectures unless
# CMAKE_CUDA_ARCHITECTURES is given. The driver stub libcuda.so is never
# linked: only the runtime (CUDA::cudart), cuBLAS and NCCL (which has no CMake
# package: seqpar::nccl wraps the library; the backend needs it, for the
# communication layer runtime/comm/NcclComm.cpp).
option(SEQPAR_ENABLE_CUDA "Build the CUDA backend when CUDA is found" ON)

set(SEQPAR_HAVE_CUDA OFF)
if(SEQPAR_ENABLE_CUDA AND NOT SEQPAR_SANITIZE)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    if(CMAKE_CXX_COMPILER_LAUNCHER AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit)
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    if(CUDAToolkit_FOUND AND NCCL_LIBRARY AND NCCL_INCLUDE_DIR)
      add_library(seqpar::nccl UNKNOWN IMPORTED)
      set_target_properties(seqpar::nccl PROPERTIES
        IMPORTED_LOCATION ${NCCL_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
      set(SEQPAR_HAVE_CUDA ON)
    elseif(CUDAToolkit_FOUND)
      message(STATUS "CUDA backend: NCCL not found")
    endif()
  endif()
endif()
# cuDNN's fused attention (runtime/cuda/CudnnGraphs.cpp) needs cudnn.h and
# the header-only cudnn-frontend (scripts/install-deps.sh puts it in
# /usr/local/share/cudnn-frontend; CUDNN_FRONTEND_DIR names another). No
# libcudnn is linked: the backend opens libcudnn.so.9 at run time and keeps
# its native attention where that fails. SEQPAR_HAVE_CUDNN says whether the
# path is built.
option(SEQPAR_ENABLE_CUDNN "Build cuDNN attention when cuDNN is found" ON)
set(SEQPAR_HAVE_CUDNN OFF)
if(SEQPAR_HAVE_CUDA AND SEQPAR_ENABLE_CUDNN)
  find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_path(CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h
    HINTS $ENV{CUDNN_FRONTEND_DIR}/include ${CUDNN_FRONTEND_DIR}/include
          /usr/local/share/cudnn-frontend/include)
  if(CUDNN_INCLUDE_DIR AND CUDNN_FRONTEND_INCLUDE_DIR)
    set(SEQPAR_HAVE_CUDNN ON)
    message(STATUS "cuDNN attention: ON (${CUDNN_INCLUDE_DIR}, "
                   "${CUDNN_FRONTEND_INCLUDE_DIR})")
  else()
    message(STATUS "cuDNN attention: OFF (cudnn.h: ${CUDNN_INCLUDE_DIR}, "
                   "cudnn_frontend.h: ${CUDNN_FRONTEND_INCLUDE_DIR})")
  endif()
endif()

if(SEQPAR_HAVE_CUDA)
  message(STATUS "CUDA backend: ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES}, ${NCCL_LIBRARY})")
else()
  message(STATUS "CUDA backend: OFF")
endif()

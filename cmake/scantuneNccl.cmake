# Finds NCCL (nccl.h and libnccl, from the CUDA toolkit or $NCCL_HOME) and defines the
# imported target NCCL::nccl. Used by the build (the optional scantune::nccl component)
# and by an installed scantuneConfig.cmake (find_package(scantune COMPONENTS nccl)).
# Sets SCANTUNE_NCCL_FOUND. Needs find_package(CUDAToolkit) first.
if(TARGET NCCL::nccl)
  set(SCANTUNE_NCCL_FOUND TRUE)
  return()
endif()
find_path(SCANTUNE_NCCL_INCLUDE_DIR nccl.h
          HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
find_library(SCANTUNE_NCCL_LIBRARY nccl
             HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME PATH_SUFFIXES lib lib64)
if(SCANTUNE_NCCL_INCLUDE_DIR AND SCANTUNE_NCCL_LIBRARY)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION ${SCANTUNE_NCCL_LIBRARY}
                                              INTERFACE_INCLUDE_DIRECTORIES ${SCANTUNE_NCCL_INCLUDE_DIR})
  set(SCANTUNE_NCCL_FOUND TRUE)
else()
  set(SCANTUNE_NCCL_FOUND FALSE)
endif()

# The CMake package of an installed libscantune (docs/packaging.md):
#   <prefix>/lib/cmake/scantune/scantune{Config,ConfigVersion,Targets*}.cmake
# so that consumers can `find_package(scantune CONFIG REQUIRED)` and link
# `scantune::scantune`. install(TARGETS scantune EXPORT scantuneTargets) and the
# headers are in runtime/CMakeLists.txt; the CLI's install is in tuner/CMakeLists.txt.
# Components: Runtime (the shared library), Development (headers, the .so link,
# this package); the CLI has none of its own (`cmake --install` installs everything).
include(CMakePackageConfigHelpers)

set(SCANTUNE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/scantune)

# Installed binaries find their dependencies without LD_LIBRARY_PATH: the library
# finds cudart and NVRTC where it was linked against them (outside the linker's
# default directories), and the CLI also finds libscantune in ../lib.
set_target_properties(scantune PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
if(TARGET scantune_cli)
  set_target_properties(scantune_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
                                                INSTALL_RPATH_USE_LINK_PATH ON)
endif()

install(EXPORT scantuneTargets NAMESPACE scantune:: DESTINATION ${SCANTUNE_INSTALL_CMAKEDIR}
        COMPONENT Development)

# The optional NCCL component: its own export set, loaded by scantuneConfig.cmake when
# a consumer asks for COMPONENTS nccl, with the NCCL finder that defines NCCL::nccl.
if(TARGET scantune_nccl)
  install(EXPORT scantuneNcclTargets NAMESPACE scantune:: FILE scantuneNcclTargets.cmake
          DESTINATION ${SCANTUNE_INSTALL_CMAKEDIR} COMPONENT Development)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/scantuneNccl.cmake
          DESTINATION ${SCANTUNE_INSTALL_CMAKEDIR} COMPONENT Development)
endif()

set(SCANTUNE_CUDA_VERSION_MAJOR ${CUDAToolkit_VERSION_MAJOR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/scantuneConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/scantuneConfig.cmake
                              INSTALL_DESTINATION ${SCANTUNE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/scantuneConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/scantuneConfig.cmake
              ${PROJECT_BINARY_DIR}/scantuneConfigVersion.cmake
        DESTINATION ${SCANTUNE_INSTALL_CMAKEDIR} COMPONENT Development)

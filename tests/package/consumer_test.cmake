# The consumer test (ctest -L package): installs libscantune from the build tree into a
# fresh prefix, builds examples/ against it with find_package(scantune CONFIG), and
# runs the example. Run by tests/package/CMakeLists.txt as `cmake -D... -P` with:
#   BUILD_DIR      the scantune build tree          WORK_DIR   scratch folder (recreated)
#   SOURCE_DIR     the scantune source tree         GENERATOR  CMAKE_GENERATOR of the build
#   CXX_COMPILER   the compiler of the build        BUILD_TYPE its CMAKE_BUILD_TYPE
#   CUDA_ROOT      the CUDA toolkit of the build    WERROR     ON/OFF
#   MAKE_PROGRAM   CMAKE_MAKE_PROGRAM               EXTRA_ARGS ;-list of more -D options
# The example exits 77 when there is no CUDA device; that passes (the install, the
# package and the build were still checked) unless SCANTUNE_REQUIRE_GPU=1.
cmake_minimum_required(VERSION 3.25)

function(step name)
  message(STATUS "[package] ${name}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(NOTICE "--- output of: ${command}\n${out}--- end of output")
    message(FATAL_ERROR "[package] FAILED at step '${name}' (exit ${rc}); its output is above")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/example-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# (a) The library is built (a no-op after a full build; ctest does not build), then
# installed: the library (Runtime) and its headers and CMake package (Development); not the CLI.
step("build libscantune" ${CMAKE_COMMAND} --build ${BUILD_DIR} --target scantune)
foreach(component Runtime Development)
  step("install ${component}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
       --component ${component})
endforeach()
if(NOT EXISTS ${prefix}/${LIBDIR}/cmake/scantune/scantuneConfig.cmake)
  message(FATAL_ERROR "[package] FAILED: no ${LIBDIR}/cmake/scantune/scantuneConfig.cmake under ${prefix}")
endif()

# (b) examples/ as a separate project that finds scantune only through the prefix.
set(make_program)
if(MAKE_PROGRAM)
  set(make_program -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
step("configure examples/" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${example_build}
     -G ${GENERATOR} ${make_program} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
     -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_PREFIX_PATH=${prefix} -DCUDAToolkit_ROOT=${CUDA_ROOT}
     -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DSCANTUNE_EXAMPLE_WERROR=${WERROR} ${EXTRA_ARGS})
# The package that was found must be the one just installed.
file(STRINGS ${example_build}/CMakeCache.txt found_dir REGEX "^scantune_DIR:")
if(NOT found_dir MATCHES "^scantune_DIR:PATH=${prefix}/")
  message(FATAL_ERROR "[package] FAILED: examples/ found scantune elsewhere: ${found_dir}")
endif()
step("build examples/" ${CMAKE_COMMAND} --build ${example_build})

# (c) Run it. The kernel cache and tuning database stay inside WORK_DIR.
set(ENV{SCANTUNE_KERNEL_CACHE} ${WORK_DIR}/kernel-cache)
set(ENV{SCANTUNE_DB} ${WORK_DIR}/tuning.db)
foreach(name inclusive_sum_example struct_scan_example)
  set(example ${example_build}/${name})
  execute_process(COMMAND ${example} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "[package] run: ${example} (exit ${rc})\n${out}")
  if(rc EQUAL 77 AND NOT "$ENV{SCANTUNE_REQUIRE_GPU}" STREQUAL "1")
    message(STATUS "[package] no CUDA device: install, find_package and build checked; the "
                   "example's scans were not run (SCANTUNE_REQUIRE_GPU=1 makes this a failure)")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "[package] FAILED at step 'run ${name}' (exit ${rc}); output above")
  endif()
endforeach()
message(STATUS "[package] OK")

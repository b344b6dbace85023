# libscantune exports only the public API: every dynamic symbol it defines is a
# scantune:: name outside scantune::detail, a scantune_ C function, or the type
# information of scantune::Error.
#   cmake -DLIBRARY=<libscantune.so> -DNM=<nm> -P exports_test.cmake
execute_process(COMMAND ${NM} -DC --defined-only ${LIBRARY} OUTPUT_VARIABLE symbols
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(count 0)
set(bad "")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  # "<address> <type> <name>"
  string(REGEX REPLACE "^[0-9a-fA-F]+ [A-Za-z] " "" name "${line}")
  math(EXPR count "${count} + 1")
  if(name MATCHES "detail|internal|Impl")
    string(APPEND bad "  ${name}\n")
  elseif(NOT name MATCHES "^(scantune::|scantune_|typeinfo for scantune::Error$|typeinfo name for scantune::Error$|vtable for scantune::Error$)")
    string(APPEND bad "  ${name}\n")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "libscantune exports symbols outside its public API:\n${bad}")
endif()
if(count LESS 20)
  message(FATAL_ERROR "only ${count} exported symbols: the public API is missing")
endif()
message(STATUS "${count} exported symbols, all public API")

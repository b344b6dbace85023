# Embeds the NVRTC templates (templates/*.cuh) into the library as string literals,
# so a compile at run time needs no installed template directory.
set(SCANTUNE_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)

function(scantune_embed_templates out_cpp)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} "-DFILES=${files}" -P ${SCANTUNE_EMBED_SCRIPT}
    DEPENDS ${files} ${SCANTUNE_EMBED_SCRIPT}
    COMMENT "Embedding scantune templates"
    VERBATIM)
endfunction()

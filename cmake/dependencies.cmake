# Header-only libraries from Debian, reached through a shim directory of symlinks.
# Never add -I/usr/include: under Emscripten the host's libc headers would shadow the sysroot.
set(SCENERIA_SHIM_DIR "${CMAKE_BINARY_DIR}/shim")
file(MAKE_DIRECTORY "${SCENERIA_SHIM_DIR}")
foreach(dep glm fmt nlohmann CLI fast_float stb rapidjson)
  if(NOT EXISTS "/usr/include/${dep}")
    message(FATAL_ERROR "/usr/include/${dep} is missing: run scripts/setup (it installs the Debian packages)")
  endif()
  if(NOT EXISTS "${SCENERIA_SHIM_DIR}/${dep}")
    file(CREATE_LINK "/usr/include/${dep}" "${SCENERIA_SHIM_DIR}/${dep}" SYMBOLIC)
  endif()
endforeach()

add_library(sceneria_deps INTERFACE)
target_include_directories(sceneria_deps SYSTEM INTERFACE "${SCENERIA_SHIM_DIR}")
# fmt's compiled part is src/core/fmt.cpp (one configuration for both builds: no libfmt to link).
target_compile_definitions(sceneria_deps INTERFACE GLM_FORCE_CXX17 GLM_FORCE_SILENT_WARNINGS)

# CLI11 is only used by the native command-line tool.
add_library(sceneria_cli_deps INTERFACE)
target_link_libraries(sceneria_cli_deps INTERFACE sceneria_deps)

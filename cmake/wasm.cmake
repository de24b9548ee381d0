# The browser module: Embind bindings + renderer + SDL2 platform layer, as an ES module that runs
# both on the page (viewer) and inside the parse worker (inspect). Output: build/wasm/web/.
set(sdl2_lib "${SCENERIA_SDL2_PREFIX}/lib/libSDL2.a")
if(NOT EXISTS "${sdl2_lib}")
  message(FATAL_ERROR "SDL2 for Emscripten not found at ${SCENERIA_SDL2_PREFIX}: run scripts/setup")
endif()
add_library(sdl2_emscripten STATIC IMPORTED)
set_target_properties(sdl2_emscripten PROPERTIES IMPORTED_LOCATION "${sdl2_lib}")
target_include_directories(sdl2_emscripten SYSTEM INTERFACE "${SCENERIA_SDL2_PREFIX}/include")

# The renderer and the browser's platform layer: they see core, io, scene, render and platform.
sceneria_layer_root(platform_root platform core io scene render platform)
add_library(sceneria_render STATIC src/render/renderer.cpp src/platform/web/web_viewer.cpp)
target_link_libraries(sceneria_render PUBLIC sceneria_render_math sdl2_emscripten)
target_include_directories(sceneria_render PUBLIC "${platform_root}")
target_compile_options(sceneria_render PRIVATE ${SCENERIA_WARNINGS})
sceneria_precompile(sceneria_render)

set(sdl2_js_funcs "${CMAKE_BINARY_DIR}/sdl2_js_library_funcs.json")
file(WRITE "${sdl2_js_funcs}" "[\"$autoResumeAudioContext\", \"$dynCall\"]\n")

add_executable(sceneria_web wasm/bindings.cpp)
target_link_libraries(sceneria_web PRIVATE sceneria_core sceneria_render)
set_target_properties(sceneria_web PROPERTIES OUTPUT_NAME sceneria SUFFIX ".js"
                      RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/web")
target_link_options(sceneria_web PRIVATE
  -lembind
  -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createSceneria
  -sENVIRONMENT=web,worker
  -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
  -sINITIAL_MEMORY=64MB -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
  # A thread asked for while the pool is busy fails at once (EAGAIN; std::thread throws) instead
  # of waiting for a worker that can only start once the event loop runs, which would deadlock a
  # join: run_shares, OrderedWork and TaskPool then do the work on the calling thread.
  -sPTHREAD_POOL_SIZE=2 -sPTHREAD_POOL_SIZE_STRICT=2
  # SDL2's audio code refers to these JS helpers (emscripten's own sdl2 port adds them too).
  # Passed through a file: a '$' on the command line would be eaten by the shell.
  "-sDEFAULT_LIBRARY_FUNCS_TO_INCLUDE=@${sdl2_js_funcs}"
  -Wno-pthreads-mem-growth)

# The core for Node (the JS API's documents and conversions, api/): the same bindings without the
# viewer, as a CommonJS factory. No pthread pool: nothing here starts a thread (OpenOptions and
# WriteOptions keep threads = 1), so Node exits when the caller is done. Output: build/wasm/node/.
add_executable(sceneria_node wasm/bindings.cpp)
target_compile_definitions(sceneria_node PRIVATE SCENERIA_NO_VIEWER)
target_link_libraries(sceneria_node PRIVATE sceneria_core)
set_target_properties(sceneria_node PROPERTIES OUTPUT_NAME sceneria-core SUFFIX ".js"
                      RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/node")
target_link_options(sceneria_node PRIVATE
  -lembind
  -sMODULARIZE=1 -sEXPORT_NAME=createSceneriaCore
  -sENVIRONMENT=node
  -sINITIAL_MEMORY=64MB -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
  -sPTHREAD_POOL_SIZE=0
  -Wno-pthreads-mem-growth)

// The viewer: the C++ renderer (SDL2 + WebGL2) on a page's <canvas id="canvas">, from the site's
// WebAssembly module. Files are parsed in the session's worker (sceneria.mjs, Session); the viewer
// draws the scenes and deltas it answers.
//
// startViewer(canvas) resolves to the Embind Viewer: renderFrame, readPixels, project, loadScene,
// addDelta, dropSection, pick, select, findObject, object, goTo, driveFrom, setMode, mode, camera,
// lookAt, setOrbit, stats, and
//   hide(first, count)         leave objects [first, first + count) out (hide(-1, 0): show all)
//   setLayers(static, models)  switch static geometry / model instances on or off
//   step(seconds)              move the camera by the held keys over a fixed time (no drawing)
//   update(seconds, fwd, back) the same for drive mode
//   frameAll()                 frame everything drawn so that it fills the view
//   releaseKeys()              let go of held keys (the canvas lost focus while one was down)
//   contents()                 {objects, instances, repeated, lines, textures, extent}: what the scene holds
//   materialBoard()            the renderer's material test scene (src/scene/material_board.hpp)
export async function startViewer(canvas) {
  if (!self.crossOriginIsolated) {
    throw new Error('the page is not cross-origin isolated (COOP/COEP headers missing), so WebAssembly threads cannot run');
  }
  const { default: createSceneria } = await import('../wasm/sceneria.js');
  const module = await createSceneria({
    canvas,
    print: (text) => console.log(`[sceneria] ${text}`),
    printErr: (text) => console.warn(`[sceneria] ${text}`),
  });
  const viewer = new module.Viewer();
  const error = viewer.start();
  if (error) throw new Error(error);
  viewer.materialBoard = () => module.materialBoard();
  return viewer;
}

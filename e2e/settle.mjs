// Whether streaming and model loading have settled around the camera, for the tests and
// benchmarks that check or measure a view once it is complete: the ring let go (a stream holds
// it back until its first model shows, docs/streaming.md), nothing in flight or decoded and
// waiting, and where models are expected none being looked up or loaded and some loaded; so
// `rounds` checks in a row, half a second apart. Resolves to whether it settled within `tries`.
export async function settle(page, { models = true, tries = 240, rounds = 2 } = {}) {
  let calm = 0;
  for (let i = 0; i < tries && calm < rounds; i++) {
    await page.waitForTimeout(500);
    const quiet = await page.evaluate((models) => {
      const s = window.sceneria.stream, m = window.sceneria.models;
      return !!s && !s.held && s.inFlight === 0 && s.ready === 0 && s.applied > 0 &&
             (!models || (!!m && m.pending === 0 && m.loaded > 0));
    }, models);
    calm = quiet ? calm + 1 : 0;
  }
  return calm >= rounds;
}

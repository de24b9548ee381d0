// Emscripten programs see a fixed environment, not node's. Pass through what the tests read.
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  for (const name of ['CI', 'SCENERIA_SAMPLES', 'GTEST_OUTPUT', 'GTEST_FILTER', 'GTEST_BRIEF']) {
    if (process.env[name] !== undefined) ENV[name] = process.env[name];
  }
});

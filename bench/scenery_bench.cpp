// Scenery text throughput, the same code natively and as WebAssembly: tokenize, bake to a twin,
// and compile to EU7B (the reference writer's reading), on a real file or a generated text
// scenery of a given size. Prints one JSON line; bench/scenery-run.mjs runs both builds side by
// side and prints ratios.
// Also the viewer's load passes: the infrastructure pass (what is drawn first), the visual pass
// after it, and one pass of everything.
// The bake and the compile run on one thread and on --threads (default: every core), side by side.
//   sceneria_scenery_bench [--file PATH] [--mb N] [--repeat R] [--threads N] [--only tokenize|bake|compile|passes]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "formats/eu7b/writer.hpp"
#include "formats/scenery/bake.hpp"
#include "formats/scenery/interpret.hpp"
#include "formats/scenery/tokens.hpp"
#include "bench_clock.hpp"

using namespace sceneria;
using namespace sceneria::bench;

namespace {

// A text scenery of about `bytes`: tracks along a line, traction above them, ground shapes with
// material blocks, models and includes, in the spellings real files use.
std::string generate(std::size_t bytes) {
  std::string s;
  s.reserve(bytes + 4096);
  std::uint64_t state = 12345;
  auto rnd = [&] { state = state * 6364136223846793005ull + 1442695040888963407ull; return static_cast<double>(state >> 11) / 9007199254740992.0; };
  for (int i = 0; s.size() < bytes; ++i) {
    const double z = i * 100.0, x = rnd() * 2;
    s += fmt::format("node 1000 0 t{} track normal 100.0 1.435 0.25 25.0 20 0 flat vis\n Rail_screw_used1 4 TpBpS-new2.tex 0.2 0.5 1.1\n"
                     "{:.4f} 0.2 {:.3f} 0.0 //point 1\n0.0 0.0 0.0\n0.0 0.0 0.0\n{:.4f} 0.2 {:.3f} 0.0\n0\nvelocity 120.0\nendtrack\n",
                     i, x, z, x, z + 100);
    s += fmt::format("node -1 0 none traction zasilanie 3000 400 0.01 cu 3.0 1 {0:.3f} 5.8 {1:.3f} {0:.3f} 5.8 {2:.3f} {0:.3f} 7.5 {1:.3f} {0:.3f} 7.5 {2:.3f} 0.4 4.0 3 0.04 vis endtraction\n",
                     x, z, z + 100);
    s += "node 1000 0 none triangles material ambient: 200.0 200.0 200.0 diffuse: 150.0 150.0 150.0 specular: 229.0 229.0 229.0 endmaterial GrassGreen1.tga\n";
    for (int v = 0; v < 3; ++v) {
      // One draw per statement: the order of function arguments is the compiler's choice.
      const double vx = x + 20 + rnd() * 50, vz = z + rnd() * 100, u = rnd(), w = rnd();
      s += fmt::format("{:.3f} 0.0 {:.3f} \t0.0 1.0 0.0  {:.4f} {:.4f}{}\n", vx, vz, u, w, v < 2 ? " end" : "");
    }
    s += "endtri\n";
    if (i % 4 == 0)
      s += fmt::format("node;-1;0;m{};model;{:.3f};0.0;{:.3f};90.0;ip/kolejowe/szopa_001.t3d;none;;endmodel\n", i, x - 30, z + 50);
    if (i % 16 == 0) s += fmt::format("include;ZwrP34R300.inc;zwr{:02};{:.4f};0.0;{:.2f};180.0;zwrot34R300pods-new.tex;end\n", i, x, z);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, dump, only;
  double mb = 100;
  int repeat = 3;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--file")) file = argv[i + 1];
    else if (!std::strcmp(argv[i], "--mb")) mb = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--dump")) dump = argv[i + 1];  // writes the text and its twin (checks)
    else if (!std::strcmp(argv[i], "--threads")) threads = static_cast<unsigned>(std::max(1, std::atoi(argv[i + 1])));
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1];  // one stage, for a profiler: tokenize|bake|compile
  }
  std::vector<std::uint8_t> text;
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  } else {
    const std::string s = generate(static_cast<std::size_t>(mb * 1e6));
    text.assign(s.begin(), s.end());
  }
  if (!dump.empty()) {
    std::ofstream(dump, std::ios::binary).write(reinterpret_cast<const char*>(text.data()), static_cast<std::streamsize>(text.size()));
    const auto twin = scenery::bake_bytes(text, scenery::TwinKind::scm);
    std::ofstream(dump + "b", std::ios::binary).write(reinterpret_cast<const char*>(twin.data()), static_cast<std::streamsize>(twin.size()));
  }
  double tokenize_ms = 1e300, bake_ms = 1e300, bake_one_ms = 1e300, compile_ms = 1e300, compile_one_ms = 1e300, infra_ms = 1e300, visual_ms = 1e300, all_ms = 1e300;
  std::size_t tokens = 0, twin_bytes = 0, module_bytes = 0, compile_heap = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t = Clock::now();
    const auto run = [&](const char* stage) { return only.empty() || only == stage; };
    if (run("tokenize")) {
    scenery::TextTokenSource source(text);
    scenery::Token tok;
    tokens = 0;
    while (source.next(tok)) ++tokens;
    tokenize_ms = std::min(tokenize_ms, ms_since(t));
    }

    if (run("bake")) {
      t = Clock::now();
      twin_bytes = scenery::bake_bytes(text, scenery::TwinKind::scm).size();
      bake_one_ms = std::min(bake_one_ms, ms_since(t));
      if (threads > 1) {
        t = Clock::now();
        (void)scenery::bake_bytes(text, scenery::TwinKind::scm, {}, nullptr, threads);
        bake_ms = std::min(bake_ms, ms_since(t));
      } else {
        bake_ms = bake_one_ms;
      }
    }
    if (run("passes")) {
      t = Clock::now();
      scenery::TextTokenSource first(text);
      auto staged = scenery::interpret(first, "bench.scm", {.keep_files = true, .pass = scenery::LoadPass::infrastructure});
      infra_ms = std::min(infra_ms, ms_since(t));
      t = Clock::now();
      scenery::TextTokenSource second(text);
      scenery::interpret_visuals(second, staged);
      visual_ms = std::min(visual_ms, ms_since(t));
      t = Clock::now();
      scenery::TextTokenSource whole(text);
      (void)scenery::interpret(whole, "bench.scm", {});
      all_ms = std::min(all_ms, ms_since(t));
    }
    if (!run("compile")) continue;

    auto compile = [&](unsigned n, double& best) {
      const std::size_t heap0 = heap_in_use();
      t = Clock::now();
      scenery::TextTokenSource compile_source(text);
      auto compiled = scenery::interpret(compile_source, "bench.scm", {.reference_writer = true, .threads = n, .sources = false});
      compile_heap = std::max(compile_heap, heap_in_use() - std::min(heap_in_use(), heap0));
      auto module = eu7b::write_module(compiled.module, n);
      best = std::min(best, ms_since(t));
      module_bytes = module ? module->size() : 0;
    };
    compile(1, compile_one_ms);
    if (threads > 1) compile(threads, compile_ms);
    else compile_ms = compile_one_ms;
  }
  // Stages not run are null.
  auto ms = [](double v) { return v < 1e299 ? fmt::format("{:.2f}", v) : std::string("null"); };
  std::printf("%s\n", fmt::format("{{\"bytes\":{},\"tokens\":{},\"twin_bytes\":{},\"module_bytes\":{},\"tokenize_ms\":{},\"bake_ms\":{},\"bake_one_thread_ms\":{},"
                                  "\"compile_ms\":{},\"compile_one_thread_ms\":{},\"threads\":{},\"compile_heap\":{},"
                                  "\"infra_pass_ms\":{},\"visual_pass_ms\":{},\"one_pass_ms\":{}}}",
                                  text.size(), tokens, twin_bytes, module_bytes, ms(tokenize_ms), ms(bake_ms), ms(bake_one_ms), ms(compile_ms),
                                  ms(compile_one_ms), threads, compile_heap, ms(infra_ms), ms(visual_ms), ms(all_ms)).c_str());
  return 0;
}

#pragma once
// A motion channel's value at a time. X-Ray's envelopes are LightWave's (notes xray-object.md
// §5): keys with a shape each (TCB, Hermite, Bézier, linear, step, 2D Bézier), where the shape of
// an interval's end key says how the interval is drawn, and pre/post behaviours before the first
// key and after the last.
#include "formats/xray/xray.hpp"

namespace sceneria::xray {

enum class KeyShape : std::uint8_t { tcb = 0, hermite = 1, bezier = 2, linear = 3, step = 4, bezier2 = 5 };

// The envelope at `time` (seconds); 0 without keys. Keys must be in time order (as the SDK
// writes them); an unknown shape draws its interval as a step.
float evaluate(const Envelope& envelope, float time);

}  // namespace sceneria::xray

#pragma once
// MaSzyna text sceneries (`.scn/.scm/.inc/.ctr`) and their binary twins (`.scnb/.scmb/.incb/.ctrb`)
// in the format registry: two entries over one document (the grammar reads tokens and cannot
// tell the two apart).
#include "formats/format.hpp"

namespace sceneria::scenery {

const Format& text_format();
const Format& twin_format();

}  // namespace sceneria::scenery

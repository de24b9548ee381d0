#pragma once
// The .mmd vehicle media file's entry in the format registry (formats/catalog.cpp): read as the
// engine reads it (mmd.hpp), written back entry for entry; opened with its folder, the vehicle
// assembled (vehicle.hpp): body, low-poly interior and attachments with the chosen skin set,
// sized by its .fiz, its length, bogies, motors and doors marked.
#include "formats/format.hpp"

namespace sceneria::mmd {

const Format& format();

}  // namespace sceneria::mmd

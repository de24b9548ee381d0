#pragma once
// Document::rows and Document::search for a document whose lists are rows by index
// ({"i", "name", "detail", ...}), given a list's size and its row maker; or, for a document,
// inherited (RowsByIndex).
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "formats/document.hpp"

namespace sceneria {

// Rows first .. first + count - 1 of a list of `size`.
template <class RowOf>
nlohmann::ordered_json rows_of(std::uint64_t size, std::uint64_t first, std::uint64_t count, const RowOf& row) {
  auto out = nlohmann::ordered_json::array();
  for (std::uint64_t i = first; i < size && i < first + count; ++i) out.push_back(row(i));
  return out;
}

// At most `limit` rows whose name or detail contains `query` (case-insensitive), in list order.
template <class RowOf>
nlohmann::ordered_json search_rows(std::uint64_t size, std::string_view query, std::uint64_t limit, const RowOf& row) {
  auto out = nlohmann::ordered_json::array();
  for (std::uint64_t i = 0; i < size && out.size() < limit; ++i) {
    nlohmann::ordered_json r = row(i);
    if (icontains(r["name"].template get<std::string>(), query) || icontains(r["detail"].template get<std::string>(), query)) out.push_back(std::move(r));
  }
  return out;
}

// A document whose every list is rows by index: rows and search from its list_size and row.
class RowsByIndex : public Document {
 public:
  nlohmann::ordered_json rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override {
    return rows_of(list_size(list), first, count, [&](std::uint64_t i) { return row(list, i); });
  }
  nlohmann::ordered_json search(std::string_view list, std::string_view query, std::uint64_t limit) const override {
    return search_rows(list_size(list), query, limit, [&](std::uint64_t i) { return row(list, i); });
  }

 protected:
  virtual std::uint64_t list_size(std::string_view list) const = 0;  // 0 for a list it has not
  virtual nlohmann::ordered_json row(std::string_view list, std::uint64_t i) const = 0;  // i < list_size(list)
};

}  // namespace sceneria

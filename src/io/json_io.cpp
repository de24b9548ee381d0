#include "io/json_io.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

namespace sceneria {

void double_text(JsonText& t, double v) {
  if (std::isfinite(v)) return t.number(v);
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  t.string(fmt::format("{:#018x}", bits));
}

namespace {

// "0x" and exactly `digits` hex digits.
bool bits_from_text(const nlohmann::json& j, std::size_t digits, std::uint64_t& bits) {
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  if (s.size() != digits + 2 || s[0] != '0' || s[1] != 'x') return false;
  bits = 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return false;
    bits = bits << 4 | static_cast<std::uint64_t>(d);
  }
  return true;
}

}  // namespace

bool float_from_json(const nlohmann::json& j, float& v) {
  if (j.is_number()) {
    const double d = j.get<double>();
    // Beyond float's range is not a float the writer wrote (they are spelled as bits).
    if (!(std::fabs(d) <= static_cast<double>(std::numeric_limits<float>::max()))) return false;
    v = static_cast<float>(d);
    return true;
  }
  std::uint64_t bits;
  if (!bits_from_text(j, 8, bits)) return false;
  const auto b = static_cast<std::uint32_t>(bits);
  std::memcpy(&v, &b, 4);
  return true;
}

bool double_from_json(const nlohmann::json& j, double& v) {
  if (j.is_number()) {
    v = j.get<double>();
    return true;
  }
  std::uint64_t bits;
  if (!bits_from_text(j, 16, bits)) return false;
  std::memcpy(&v, &bits, 8);
  return true;
}

std::string_view string_form(std::string_view bytes, std::string& text) {
  if (is_valid_utf8(bytes)) return {};
  if (decode_cp1250(bytes, text)) return "cp1250";
  text = to_hex(bytes);
  return "hex";
}

bool string_from_form(std::string_view form, std::string_view text, std::string& bytes) {
  if (form.empty()) {
    bytes.assign(text);
    return true;
  }
  if (form == "cp1250") return encode_cp1250(text, bytes);
  if (form == "hex") return from_hex(text, bytes);
  return false;
}

nlohmann::ordered_json string_to_json(std::string_view bytes) {
  std::string text;
  const std::string_view form = string_form(bytes, text);
  if (form.empty()) return std::string(bytes);
  return nlohmann::ordered_json{{std::string(form), text}};
}

bool string_from_json(const nlohmann::json& j, std::string& bytes) {
  if (j.is_string()) return string_from_form({}, j.get_ref<const std::string&>(), bytes);
  if (!j.is_object() || j.size() != 1) return false;
  const auto member = j.items().begin();
  return !member.key().empty() && member.value().is_string() &&
         string_from_form(member.key(), member.value().get_ref<const std::string&>(), bytes);
}

void string_text(JsonText& t, std::string_view bytes) {
  std::string text;
  const std::string_view form = string_form(bytes, text);
  if (form.empty()) return t.string(bytes);
  t.open_object();
  t.key(form);
  t.string(text);
  t.close();
}

std::string fourcc_text(std::string_view four) {
  std::string out;
  for (const char ch : four) {
    const auto c = static_cast<std::uint8_t>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') out += ch;
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

bool fourcc_from_text(std::string_view text, std::string& four) {
  four.clear();
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\\' && i + 3 < text.size() + 0 && text[i + 1] == 'x') {
      std::string b;
      if (!from_hex(text.substr(i + 2, 2), b)) return false;
      four += b;
      i += 4;
    } else {
      four += text[i++];
    }
  }
  return four.size() == 4;
}

bool json_form_is(std::span<const std::uint8_t> head, std::string_view name, std::string_view format) {
  if (!iends_with(name, ".json")) return false;
  const std::string_view text(reinterpret_cast<const char*>(head.data()), std::min<std::size_t>(head.size(), 96));
  const auto key = text.find("\"format\"");
  if (key == std::string_view::npos || key >= 64) return false;
  const auto value = text.find(fmt::format("\"{}\"", format), key + 8);
  if (value == std::string_view::npos || value >= key + 32) return false;
  // Only blanks and the colon between the key and its value.
  for (std::size_t i = key + 8; i < value; ++i)
    if (text[i] != ':' && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') return false;
  return true;
}

std::string json_path(std::span<const JsonLevel> open) {
  std::string out;
  for (std::size_t i = 1; i < open.size(); ++i) {
    if (!open[i].key.empty()) {
      if (!out.empty()) out += '.';
      out += open[i].key;
    } else if (open[i - 1].value->is_array()) {
      out += fmt::format("[{}]", open[i - 1].items);
    }
  }
  return out;
}

namespace {

// SAX events to a tree, handing each array item to the visitor as it closes.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
 public:
  TreeBuilder(const JsonItemVisitor& visitor, std::size_t max_depth) : visitor_(visitor), max_depth_(max_depth) {
    // Levels point into frames_: it never grows past this, so they never move.
    frames_.reserve(max_depth + 1);
    levels_.reserve(max_depth + 1);
  }

  bool Null() { return add(nullptr); }
  bool Bool(bool b) { return add(b); }
  bool Int(int i) { return add(std::int64_t{i}); }
  bool Uint(unsigned u) { return add(std::uint64_t{u}); }
  bool Int64(std::int64_t i) { return add(i); }
  bool Uint64(std::uint64_t u) { return add(u); }
  bool Double(double d) { return add(d); }
  bool String(const char* s, rapidjson::SizeType n, bool) { return add(std::string(s, n)); }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    frames_.back().member.assign(s, n);
    return true;
  }
  bool StartObject() { return open(nlohmann::json::object()); }
  bool StartArray() { return open(nlohmann::json::array()); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  nlohmann::json root;
  Error error;
  std::uint64_t offset = 0;  // set by the caller as it reads, for messages

 private:
  struct Frame {
    nlohmann::json value;
    std::string key;     // the member it is the value of
    std::string member;  // an object's member being read
  };
  bool open(nlohmann::json empty) {
    if (frames_.size() >= max_depth_) {
      error = Error{Errc::bad_value, 0, fmt::format("JSON nested deeper than {} levels", max_depth_)};
      return false;
    }
    std::string key = frames_.empty() || frames_.back().value.is_array() ? std::string() : frames_.back().member;
    frames_.push_back({std::move(empty), std::move(key), {}});
    levels_.push_back({&frames_.back().value, frames_.back().key, 0});
    return true;
  }
  bool close() {
    nlohmann::json value = std::move(frames_.back().value);
    frames_.pop_back();
    levels_.pop_back();
    return add(std::move(value));
  }
  bool add(nlohmann::json value) {
    if (frames_.empty()) {
      root = std::move(value);
      return true;
    }
    Frame& parent = frames_.back();
    if (parent.value.is_object()) {
      parent.value[parent.member] = std::move(value);
      return true;
    }
    auto keep = visitor_(levels_, value);
    if (!keep) {
      error = keep.error();
      return false;
    }
    if (*keep) parent.value.push_back(std::move(value));
    ++levels_.back().items;
    return true;
  }

  const JsonItemVisitor& visitor_;
  std::size_t max_depth_;
  std::vector<Frame> frames_;
  std::vector<JsonLevel> levels_;
};

}  // namespace

Result<nlohmann::json> parse_json_streamed(ByteSource& source, const JsonItemVisitor& visitor, std::size_t max_depth) {
  TreeBuilder builder(visitor, max_depth);
  SourceStream stream(source);
  rapidjson::Reader reader;
  // Full precision: a double must come back with the bits it was written with.
  const rapidjson::ParseResult parsed = reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag>(stream, builder);
  if (stream.error()) return stream.error();
  if (!parsed) {
    if (builder.error) {
      builder.error.offset = parsed.Offset();
      return builder.error;
    }
    return Error{Errc::bad_value, parsed.Offset(),
                 fmt::format("not valid JSON at byte {}: {}", parsed.Offset(), rapidjson::GetParseError_En(parsed.Code()))};
  }
  return std::move(builder.root);
}

}  // namespace sceneria

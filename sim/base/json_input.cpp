#include "sim/base/json_input.h"

#include <array>
#include <cassert>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <vector>

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// Builds the document through nlohmann's own DOM builder and watches the
// event stream: the depth is checked before a container opens (so the DOM
// never grows past the bound), and each object's keys are remembered to
// catch duplicates. nlohmann's SAX parser itself is iterative.
class BoundedSax {
 public:
  explicit BoundedSax(json& doc) : dom_(doc, false) {}

  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) { return value() && dom_.number_float(v, s); }
  bool string(std::string& v) { return value() && dom_.string(v); }
  bool binary(json::binary_t& v) { return value() && dom_.binary(v); }

  bool start_object(std::size_t n) { return open(false) && dom_.start_object(n); }
  bool end_object() { return close() && dom_.end_object(); }
  bool start_array(std::size_t n) { return open(true) && dom_.start_array(n); }
  bool end_array() { return close() && dom_.end_array(); }

  bool key(std::string& k) {
    assert(!frames_.empty() && !frames_.back().is_array);
    Frame& f = frames_.back();
    f.token = json_pointer_token(k);
    if (!f.keys.insert(k).second) return reject(path(), "duplicate key (each key may appear once in an object)");
    return dom_.key(k);
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    // The path is where parsing stopped: the container being read.
    if (error_reason_.empty()) reject(path(), std::string("not valid JSON: ") + e.what());
    return false;
  }

  const std::string& error_path() const { return error_path_; }
  const std::string& error_reason() const { return error_reason_; }

 private:
  struct Frame {
    bool is_array = false;
    size_t index = 0;            // arrays: the next element's index
    std::string token;           // objects: the current key, escaped
    std::set<std::string> keys;  // objects: keys seen so far
  };

  // A value is about to be added to the innermost container: note its index.
  bool value() {
    if (!frames_.empty() && frames_.back().is_array) frames_.back().token = std::to_string(frames_.back().index++);
    return true;
  }
  bool open(bool is_array) {
    value();
    if (frames_.size() >= kMaxJsonDepth) {
      return reject(path(), "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    frames_.push_back(Frame{is_array, 0, {}, {}});
    return true;
  }
  bool close() {
    assert(!frames_.empty());
    frames_.pop_back();
    return true;
  }
  std::string path() const {
    std::string p;
    for (const Frame& f : frames_) p += "/" + f.token;
    return p.empty() ? "/" : p;
  }
  bool reject(std::string p, std::string reason) {
    error_path_ = std::move(p);
    error_reason_ = std::move(reason);
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Frame> frames_;
  std::string error_path_;
  std::string error_reason_;
};

}  // namespace

std::string json_pointer_token(const std::string& key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::optional<std::string> input_file_problem(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (st.type() == fs::file_type::not_found) return std::string("no such file or folder");
  if (ec) return "cannot open the file: " + ec.message();
  switch (st.type()) {
    case fs::file_type::regular: return std::nullopt;
    case fs::file_type::directory: return std::string("a folder, not a file");
    case fs::file_type::fifo: return std::string("not a regular file (a FIFO)");
    case fs::file_type::character: return std::string("not a regular file (a character device)");
    case fs::file_type::block: return std::string("not a regular file (a block device)");
    case fs::file_type::socket: return std::string("not a regular file (a socket)");
    default: return std::string("not a regular file");
  }
}

std::optional<std::string> read_input_file(const std::string& file, std::string& reason) {
  if (std::optional<std::string> problem = input_file_problem(file)) {
    reason = std::move(*problem);
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    reason = "cannot open the file";
    return std::nullopt;
  }
  // Read in chunks, bounded even if the file grows while it is read (a
  // buffer of the bound's size, zeroed for every file, would dominate
  // loading).
  std::string text;
  std::array<char, 64 * 1024> chunk;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxJsonBytes) {
      reason = "larger than " + std::to_string(kMaxJsonBytes >> 20) + " MiB";
      return std::nullopt;
    }
  }
  if (in.bad()) {
    reason = "cannot read the file";
    return std::nullopt;
  }
  return text;
}

JsonInput parse_json_input(const std::string& text) {
  JsonInput in;
  if (text.size() > kMaxJsonBytes) {
    in.path = "/";
    in.reason = "larger than " + std::to_string(kMaxJsonBytes >> 20) + " MiB";
    return in;
  }
  json doc;
  BoundedSax sax(doc);
  // strict: nothing may follow the document. Exceptions off: errors come back through the SAX.
  const bool ok = json::sax_parse(text, &sax, json::input_format_t::json, true, false);
  if (!ok) {
    in.path = sax.error_path().empty() ? "/" : sax.error_path();
    in.reason = sax.error_reason().empty() ? "not valid JSON" : sax.error_reason();
    return in;
  }
  in.doc = std::move(doc);
  return in;
}

}  // namespace qdt::sim

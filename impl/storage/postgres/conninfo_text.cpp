#include "impl/storage/postgres/conninfo_text.h"

#include <libpq-fe.h>

#include <memory>

namespace qdt::impl::postgres {
namespace {

constexpr const char* kHidden = "***";

bool is_uri(const std::string& s) { return s.rfind("postgresql://", 0) == 0 || s.rfind("postgres://", 0) == 0; }

// A URI's user:password@ and every password=... of its query.
std::string redacted_uri(const std::string& uri) {
  std::string out = uri;
  const size_t start = out.find("://") + 3;
  const size_t authority_end = std::min(out.find_first_of("/?", start), out.size());
  const size_t at = out.rfind('@', authority_end == std::string::npos ? out.size() : authority_end);
  if (at != std::string::npos && at >= start) {
    const size_t colon = out.find(':', start);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, kHidden);
  }
  const size_t query = out.find('?');
  if (query == std::string::npos) return out;
  for (size_t at_key = query; at_key != std::string::npos && at_key < out.size(); at_key = out.find('&', at_key + 1)) {
    const size_t key = at_key + 1;
    if (out.compare(key, 9, "password=") != 0) continue;
    const size_t value = key + 9;
    const size_t end = std::min(out.find('&', value), out.size());
    out.replace(value, end - value, kHidden);
  }
  return out;
}

// key=value pairs, rebuilt from libpq's own parse so quoting cannot hide one.
std::string redacted_pairs(PQconninfoOption* options) {
  std::string out;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (!o->val) continue;
    const std::string key = o->keyword;
    std::string value = key == "password" ? kHidden : o->val;
    std::string quoted = "'";
    for (const char c : value) {
      if (c == '\'' || c == '\\') quoted += '\\';
      quoted += c;
    }
    out += (out.empty() ? "" : " ") + key + "=" + quoted + "'";
  }
  return out;
}

}  // namespace

std::string redacted_conninfo(const std::string& conninfo) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(PQconninfoParse(conninfo.c_str(), &error),
                                                                        &PQconninfoFree);
  if (error) PQfreemem(error);
  if (!options) return "(a connection string libpq cannot parse)";
  return is_uri(conninfo) ? redacted_uri(conninfo) : redacted_pairs(options.get());
}

}  // namespace qdt::impl::postgres

#include "impl/variant.h"

namespace qdt::impl {
namespace {
struct Named {
  Variant variant;
  const char* name;
};
constexpr Named kVariants[] = {{Variant::none, "none"},
                               {Variant::skip_probe, "skip-probe"},
                               {Variant::fresh_id_on_duplicate, "fresh-id-on-duplicate"},
                               {Variant::last_wins, "last-wins"},
                               {Variant::queue_scope, "queue-scope"},
                               {Variant::purge_below_floor, "purge-below-floor"},
                               {Variant::watermark_off_by_one, "watermark-off-by-one"},
                               {Variant::probe_outside_lock, "probe-outside-lock"},
                               {Variant::stamp_before_lock, "stamp-before-lock"}};
}  // namespace

std::optional<Variant> parse_variant(const std::string& name) {
  for (const Named& n : kVariants) {
    if (name == n.name) return n.variant;
  }
  return std::nullopt;
}

std::string variant_name(Variant variant) {
  for (const Named& n : kVariants) {
    if (variant == n.variant) return n.name;
  }
  return "?";
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const Named& n : kVariants) {
    if (n.variant != Variant::none) out.push_back(n.name);
  }
  return out;
}

}  // namespace qdt::impl

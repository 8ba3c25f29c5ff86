#include "sim/world/cache_module_choice.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/content_hash.h"
#include "sim/base/shell_word.h"
#include "sim/world/cache_shim.h"

namespace qdt::sim {
namespace {

std::optional<CacheModule>& chosen() {
  static std::optional<CacheModule> module;
  return module;
}

}  // namespace

std::optional<std::string> choose_cache_module(const CacheModuleFlags& flags) {
  namespace fs = std::filesystem;
  const auto caller = impl::parse_cache_caller(flags.caller);
  if (!caller) return "--cache-caller " + flags.caller + ": expected shipped or reference";
  if (flags.impl.empty() && flags.lib.empty()) {
    if (flags.caller != "shipped") return std::string("--cache-caller drives a foreign cache: it needs --cache-impl or --cache-lib");
    chosen().reset();
    return std::nullopt;
  }
  if (!flags.impl.empty() && !flags.lib.empty()) return std::string("--cache-impl and --cache-lib both name the cache: give one");
  CacheModule module;
  module.caller = *caller;
  std::string library;
  if (!flags.impl.empty()) {
    if (auto problem = locate_dedup_rs(flags.impl, module.named)) return problem;
    module.built = true;
    auto built = build_cache_module(module.named);
    if (auto* problem = std::get_if<std::string>(&built)) return *problem;
    module.content_hash = std::get<BuiltModule>(built).content_hash;
    library = std::get<BuiltModule>(built).library;
  } else {
    std::error_code error;
    if (!fs::is_regular_file(flags.lib, error)) return "--cache-lib " + flags.lib + ": no such file";
    module.named = fs::absolute(flags.lib, error).lexically_normal().string();
    std::ifstream in(module.named, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in && !in.eof()) return "--cache-lib " + module.named + ": cannot be read";
    module.content_hash = content_hash_hex(bytes.str());
    library = module.named;
  }
  auto opened = CacheLibrary::open(library);
  if (auto* problem = std::get_if<std::string>(&opened)) {
    return (module.built ? "--cache-impl " + module.named + ": the built module " : "--cache-lib ") + *problem;
  }
  module.library = std::get<0>(opened);
  // One instance made and dropped now: a library that cannot make a cache fails here, not mid-campaign.
  try {
    module.library->make(1, true);
  } catch (const impl::ForeignCacheError& e) {
    return (module.built ? "--cache-impl " : "--cache-lib ") + module.named + ": " + e.what();
  }
  chosen() = std::move(module);
  return std::nullopt;
}

const CacheModule* chosen_cache_module() { return chosen() ? &*chosen() : nullptr; }

std::string chosen_cache_content_hash() { return chosen() ? chosen()->content_hash : ""; }

std::string cache_module_note() {
  if (!chosen()) return "";
  return "cache module " + chosen()->named + " (xxh128 " + chosen()->content_hash + "), " +
         impl::cache_caller_name(chosen()->caller) + " caller";
}

std::string cache_module_flags() {
  if (!chosen()) return "";
  std::string out = (chosen()->built ? " --cache-impl " : " --cache-lib ") + shell_word(chosen()->named);
  if (chosen()->caller != impl::CacheCaller::shipped) out += std::string(" --cache-caller ") + impl::cache_caller_name(chosen()->caller);
  return out;
}

}  // namespace qdt::sim

#include "sim/study/mutants.h"

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/base/file_name.h"
#include "sim/base/fork_pool.h"
#include "sim/base/outcome.h"
#include "sim/campaign/campaign.h"
#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/failure_file.h"
#include "sim/campaign/workload.h"
#include "sim/scenario/engine_support.h"
#include "sim/study/shipped_holes.h"
#include "sim/world/pg_process.h"

namespace qdt::sim {

using json = nlohmann::json;

MutantResult run_mutant(const MutantsOptions& o, impl::Variant variant, const WallClock& wall,
                        const std::string& progress_prefix) {
  assert(variant != impl::Variant::none);
  const std::vector<std::string> profiles = profiles_to_run(o.profile, o.engine == StorageEngineKind::sqlite, variant);
  assert(!profiles.empty() && o.seeds > 0);
  const std::string name = impl::variant_name(variant);
  MutantResult r;
  r.variant = variant;
  r.seeds_total = o.seeds * profiles.size();
  const double start = wall();
  double last_progress = start;
  // Interleaved: seed 1 of every profile, then seed 2, ...; the first failure in this order is the catch.
  for (uint64_t i = 0; i < o.seeds && !r.caught; ++i) {
    const uint64_t seed = o.first_seed + i;
    for (const std::string& profile : profiles) {
      SeedOutcome outcome = check_seed(seed, profile, variant, std::nullopt, nullptr, true, o.engine);
      ++r.seeds_run;
      if (!outcome.passed) {
        r.caught = true;
        r.property = outcome.signature;
        r.detail = outcome.result.failures[0].detail;
        r.profile = profile;
        r.seed = seed;
        if (!o.quiet) {
          std::cerr << progress_prefix << name << ": caught by " << r.property << " at " << profile << " seed " << seed
                    << " after " << r.seeds_run << " seeds; shrinking\n";
        }
        // Only the first failure is shrunk: it is the one the report names.
        const FailureFile file =
            write_failure_file(outcome, profile, variant, (std::filesystem::path(o.out_dir) / file_name_part(name)).string(),
                               o.engine);
        r.file = file.path;
        r.file_written = file.written;
        r.steps = file.steps;
        r.shrink_runs = file.shrink_runs;
        r.replay = file.replay;
        break;
      }
      if (!o.quiet && wall() - last_progress > 2.0) {
        last_progress = wall();
        const double rate = r.seeds_run / std::max(last_progress - start, 1e-9);
        std::cerr << progress_prefix << name << ": " << r.seeds_run << "/" << r.seeds_total << " seeds, not caught, "
                  << static_cast<int64_t>(rate) << " seeds/s, ~"
                  << static_cast<int64_t>((r.seeds_total - r.seeds_run) / std::max(rate, 1e-9)) << " s left\n";
      }
    }
  }
  assert(r.seeds_run <= r.seeds_total);
  assert(r.caught || r.seeds_run == r.seeds_total);
  if (has_hole_families(variant)) {
    // Beside the shrunk failure: where the hole bites (docs/semantics.md §7), by bisection over a scenario family.
    if (!o.quiet) std::cerr << progress_prefix << name << ": measuring where the hole bites\n";
    r.thresholds = measure_holes(variant, (std::filesystem::path(o.out_dir) / file_name_part(name)).string(), o.engine);
  }
  r.wall_s = wall() - start;
  if (!o.quiet) {
    std::cerr << progress_prefix << name << ": "
              << (r.caught ? "caught, shrunk to " + std::to_string(r.steps) + " steps"
                           : "survived " + std::to_string(r.seeds_run) + " seeds")
              << " (" << static_cast<int64_t>(r.wall_s * 10) / 10.0 << " s)\n";
  }
  return r;
}

VariantSelection select_variants(const std::vector<std::string>& names) {
  VariantSelection out;
  std::vector<impl::Variant> named;
  for (const std::string& name : names) {
    const std::optional<impl::Variant> v = impl::parse_variant(name);
    if (!v) {
      out.error = "--variant: unknown variant '" + name + "' (qdt mutants --list names them)";
      return out;
    }
    if (*v == impl::Variant::none) {
      out.error = "--variant: 'none' is the reference implementation, not a variant";
      return out;
    }
    named.push_back(*v);
  }
  for (impl::Variant v : impl::all_variants()) {
    if (names.empty() || std::find(named.begin(), named.end(), v) != named.end()) out.variants.push_back(v);
  }
  return out;
}

namespace {

std::string prefix(size_t index, size_t count) {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] ";
}

// Every variant in its own forked process, at most `jobs` at a time (sim/base/fork_pool.h).
std::optional<std::vector<MutantResult>> run_forked_variants(const MutantsOptions& o,
                                                             const std::vector<impl::Variant>& variants,
                                                             const WallClock& wall) {
  size_t failed = variants.size();
  const auto docs = run_forked(variants.size(), o.jobs, [&](size_t i) {
    return result_json(run_mutant(o, variants[i], wall, prefix(i, variants.size())));
  }, &failed);
  if (!docs) {
    if (failed < variants.size()) {
      std::cerr << "error: the worker for variant " << impl::variant_name(variants[failed]) << " failed\n";
    } else {
      std::cerr << "error: a pipe or a fork failed\n";
    }
    return std::nullopt;
  }
  std::vector<MutantResult> out;
  for (const json& doc : *docs) out.push_back(result_from_json(doc));
  return out;
}

}  // namespace

Outcome run_mutants(const MutantsOptions& o, const WallClock& wall) {
  const HarmlessRegistry& registry = harmless_arguments();
  const std::vector<std::string> problems = registry_problems(registry);
  // mutants_test checks the registry; a malformed one is a defect of this build, not a verdict.
  for (const std::string& p : problems) std::cerr << "error: harmless-argument registry: " << p << "\n";
  if (!problems.empty()) return Outcome::bad_input;
  if (o.list) {
    std::cout << variant_list(registry, o.as_json);
    return Outcome::held;
  }
  VariantSelection selection = select_variants(o.variants);
  if (!selection.error.empty()) {
    std::cerr << "error: " << selection.error << "\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  if (o.profile != "all" && !is_profile(o.profile)) {
    std::cerr << "error: --profile: unknown profile '" << o.profile << "' (one of";
    for (const std::string& p : profile_names()) std::cerr << " " << p;
    std::cerr << ", or all)\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  if (o.seeds == 0 || o.jobs == 0) {
    std::cerr << "error: --seeds and --jobs must be at least 1\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  if (auto refusal = engine_refuses_campaign(o.engine, o.profile, impl::Variant::none)) {
    std::cerr << "error: " << *refusal << "\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  {
    std::vector<impl::Variant> runnable;
    std::string left_out;
    for (impl::Variant v : selection.variants) {
      const auto refusal = engine_refuses_campaign(o.engine, o.profile, v);
      if (refusal && !o.variants.empty()) {
        std::cerr << "error: " << *refusal << "\nnothing was run (exit 2)\n";
        return Outcome::bad_input;
      }
      if (refusal) left_out += " " + impl::variant_name(v);
      else runnable.push_back(v);
    }
    if (!left_out.empty() && !o.quiet) {
      std::cerr << "--storage " << storage_engine_name(o.engine) << ": left out, the engine cannot run them:"
                << left_out << "\n";
    }
    selection.variants = std::move(runnable);
  }
  if (o.engine == StorageEngineKind::postgres) {
    // Before any worker forks: each attaches to this server (sim/world/pg_process.h).
    if (auto problem = start_pg_process_problem({o.pg_url, static_cast<int64_t>(o.jobs)})) {
      std::cerr << "error: " << *problem << "\nnothing was run (exit 2)\n";
      return Outcome::bad_input;
    }
  }
  const double start = wall();
  std::vector<MutantResult> results;
  if (o.jobs <= 1 || selection.variants.size() <= 1) {
    for (size_t i = 0; i < selection.variants.size(); ++i) {
      results.push_back(run_mutant(o, selection.variants[i], wall, prefix(i, selection.variants.size())));
    }
  } else {
    std::optional<std::vector<MutantResult>> forked = run_forked_variants(o, selection.variants, wall);
    if (!forked) return Outcome::bad_input;
    results = std::move(*forked);
  }
  const double wall_s = wall() - start;
  json settings = {{"profile", o.profile},
                   {"profiles", profiles_to_run(o.profile, o.engine == StorageEngineKind::sqlite)},
                   {"seeds", o.seeds},
                   {"first_seed", o.first_seed},
                   {"out_dir", o.out_dir},
                   {"wall_s", wall_s}};
  if (o.engine == StorageEngineKind::postgres) settings["storage"] = storage_engine_name(o.engine);
  const json document = mutants_json(results, registry, settings);
  if (o.as_json) std::cout << document.dump(2) << "\n";
  else std::cout << mutants_table(results, registry);
  if (o.on_document && !o.on_document(document)) return Outcome::bad_input;
  if (!o.quiet) std::cerr << results.size() << " variants in " << static_cast<int64_t>(wall_s * 10) / 10.0 << " s wall\n";
  return mutants_outcome(results, registry);
}

}  // namespace qdt::sim

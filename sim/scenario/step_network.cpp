#include "sim/scenario/step_network.h"

#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {

using json = nlohmann::json;

void NetworkChange::apply(NetworkConfig& config) const {
  if (latency_ms) {
    config.latency_ms_min = latency_ms->first;
    config.latency_ms_max = latency_ms->second;
  }
  if (loss_request_ppm) config.loss_request_ppm = *loss_request_ppm;
  if (loss_response_ppm) config.loss_response_ppm = *loss_response_ppm;
  if (duplicate_ppm) config.duplicate_ppm = *duplicate_ppm;
}

void read_network_change(JsonReader& r, const json& n, const std::string& p, NetworkChange& change) {
  if (!n.is_object()) return r.fail(p, "expected an object");
  int64_t lo = 0, hi = 0;
  if (n.contains("latency_ms") && r.latency(n, p, lo, hi)) change.latency_ms = std::make_pair(lo, hi);
  change.loss_request_ppm = r.probability_ppm(n, p, "loss_request");
  change.loss_response_ppm = r.probability_ppm(n, p, "loss_response");
  change.duplicate_ppm = r.probability_ppm(n, p, "duplicate");
}

namespace {

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  NetworkChange& n = s.args.emplace<NetworkChange>();
  r.only(j, p, {"op", "id", "latency_ms", "loss_request", "loss_response", "duplicate"});
  read_network_change(r, j, p, n);
  if (!n.latency_ms && !n.loss_request_ppm && !n.loss_response_ppm && !n.duplicate_ppm) {
    r.fail(p, "a network step changes at least one of latency_ms, loss_request, loss_response, duplicate");
  }
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  World& world = runner.world();
  NetworkConfig next = world.config().network;
  s.as<NetworkChange>().apply(next);
  world.set_network(next);
  world.trace()
      .begin(world.clock().now_ms(), "network")
      .field("latency", std::to_string(next.latency_ms_min) + ".." + std::to_string(next.latency_ms_max))
      .field("loss_request_ppm", next.loss_request_ppm)
      .field("loss_response_ppm", next.loss_response_ppm)
      .field("duplicate_ppm", next.duplicate_ppm)
      .end();
}

std::string summary(const Step& s) {
  const NetworkChange& n = s.as<NetworkChange>();
  std::string out;
  auto add = [&](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  if (n.latency_ms) add("latency " + std::to_string(n.latency_ms->first) + ".." + std::to_string(n.latency_ms->second) + " ms");
  if (n.loss_request_ppm) add("loss_request " + std::to_string(*n.loss_request_ppm) + " ppm");
  if (n.loss_response_ppm) add("loss_response " + std::to_string(*n.loss_response_ppm) + " ppm");
  if (n.duplicate_ppm) add("duplicate " + std::to_string(*n.duplicate_ppm) + " ppm");
  return out.empty() ? "no change" : out;
}

}  // namespace

const StepKind network_step{.name = "network", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim

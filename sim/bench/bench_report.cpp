#include "sim/bench/bench_report.h"

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "sim/bench/bench_machine.h"

#include "git_describe.h"  // generated in the build folder (sim/bench/git_describe.cmake)

namespace qdt::sim {

using json = nlohmann::json;

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

std::string number(double v) {
  std::ostringstream s;
  if (v >= 100) s << std::fixed << std::setprecision(0) << v;
  else s << std::setprecision(3) << v;
  return s.str();
}

}  // namespace

BenchFigure bench_figure(std::string name, double value, std::string unit, std::string command, char op,
                         double bound, std::string note) {
  BenchFigure f{std::move(name), value, std::move(unit), std::move(command), "", std::nullopt, std::move(note)};
  if (op != 0) {
    std::ostringstream t;
    t << (op == '>' ? ">= " : "<= ") << bound;
    f.target = t.str();
    f.met = op == '>' ? value >= bound : value <= bound;
  }
  return f;
}

json bench_document(const std::vector<BenchFigure>& figures, bool quick, double load_before, double load_after) {
  json doc = {{"commit", QDT_GIT_DESCRIBE},
              {"machine", {{"cpu", cpu_model()}, {"cores", cpu_cores()}, {"load_before", load_before}, {"load_after", load_after}}},
              {"date", utc_now()},
              {"quick", quick},
              {"figures", json::array()}};
  for (const BenchFigure& f : figures) {
    doc["figures"].push_back({{"name", f.name},
                              {"value", f.value},
                              {"unit", f.unit},
                              {"command", f.command},
                              {"target", f.target.empty() ? json() : json(f.target)},
                              {"met", f.met ? json(*f.met) : json()},
                              {"note", f.note}});
  }
  return doc;
}

void print_bench_table(const json& doc, const std::vector<BenchFigure>& figures) {
  std::cout << "qdt bench  commit " << doc["commit"].get<std::string>() << "  machine "
            << doc["machine"]["cpu"].get<std::string>() << ", " << doc["machine"]["cores"] << " cores, load "
            << number(doc["machine"]["load_before"].get<double>()) << " -> " << number(doc["machine"]["load_after"].get<double>())
            << "  "
            << doc["date"].get<std::string>() << (doc["quick"].get<bool>() ? "  (--quick)" : "") << "\n\n";
  size_t w = 6;
  for (const BenchFigure& f : figures) w = std::max(w, f.name.size());
  std::cout << std::left << std::setw(static_cast<int>(w)) << "figure" << "  " << std::right << std::setw(12) << "value"
            << "  " << std::left << std::setw(9) << "unit" << std::setw(11) << "target" << std::setw(6) << "met"
            << "command\n";
  for (const BenchFigure& f : figures) {
    std::cout << std::left << std::setw(static_cast<int>(w)) << f.name << "  " << std::right << std::setw(12)
              << number(f.value) << "  " << std::left << std::setw(9) << f.unit << std::setw(11) << f.target
              << std::setw(6) << (f.met ? (*f.met ? "yes" : "NO") : "") << f.command << "\n";
  }
  std::cout << std::flush;
}

}  // namespace qdt::sim

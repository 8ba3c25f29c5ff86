# What the two harnesses that do not link qdt_sim compile: just the sources
# their function reaches, so that the fuzzing build (every source
# instrumented) makes them in minutes. One list for both builds: the normal
# build's corpus replays (sim/CMakeLists.txt) link from these same lists, so
# a source a harness newly reaches breaks ctest's build, not only the clang
# one (json_text.cpp went missing here once, and only scripts/fuzz.sh saw it).
# Sets QDT_SCENARIO_FUZZ_SOURCES and QDT_PUSH_REQUEST_FUZZ_SOURCES; the
# caller adds the harness and its main.
# The scenario loader reads every step kind through the kinds' registry
# (sim/scenario/step_kinds.h), whose entries hold each kind's run beside its
# reader: the scenario harness links the scenario library, not a source list.
set(QDT_SCENARIO_FUZZ_SOURCES)
set(QDT_SCENARIO_FUZZ_LIBRARIES qdt_sim_scenario)
set(QDT_PUSH_REQUEST_FUZZ_SOURCES
  ${PROJECT_SOURCE_DIR}/sim/base/json_input.cpp ${PROJECT_SOURCE_DIR}/impl/broker/push_request.cpp
  ${PROJECT_SOURCE_DIR}/impl/frames.cpp ${PROJECT_SOURCE_DIR}/impl/hash.cpp ${PROJECT_SOURCE_DIR}/impl/uuid.cpp)
set(QDT_PUSH_REQUEST_FUZZ_LIBRARIES nlohmann_json::nlohmann_json PkgConfig::XXHASH)

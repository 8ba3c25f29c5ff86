# What the two harnesses that do not link qdt_sim compile: just the sources
# their function reaches, so that the fuzzing build (every source
# instrumented) makes them in minutes. One list for both builds: the normal
# build's corpus replays (sim/CMakeLists.txt) link from these same lists, so
# a source a harness newly reaches breaks ctest's build, not only the clang
# one (json_text.cpp went missing here once, and only scripts/fuzz.sh saw it).
# Sets QDT_SCENARIO_FUZZ_SOURCES and QDT_PUSH_REQUEST_FUZZ_SOURCES; the
# caller adds the harness and its main.
set(QDT_SCENARIO_FUZZ_SOURCES
  ${PROJECT_SOURCE_DIR}/sim/base/json_input.cpp ${PROJECT_SOURCE_DIR}/sim/scenario/scenario.cpp ${PROJECT_SOURCE_DIR}/sim/base/file_name.cpp
  ${PROJECT_SOURCE_DIR}/sim/base/json_schema.cpp ${PROJECT_SOURCE_DIR}/sim/schedule/schedule_config.cpp
  ${CMAKE_BINARY_DIR}/sim/scenario/schema_text.cpp ${PROJECT_SOURCE_DIR}/impl/queue_options.cpp
  ${PROJECT_SOURCE_DIR}/impl/json_text.cpp ${PROJECT_SOURCE_DIR}/impl/uuid.cpp
  ${PROJECT_SOURCE_DIR}/impl/variant.cpp)
set(QDT_SCENARIO_FUZZ_LIBRARIES nlohmann_json::nlohmann_json valijson Boost::fiber)
set(QDT_PUSH_REQUEST_FUZZ_SOURCES
  ${PROJECT_SOURCE_DIR}/sim/base/json_input.cpp ${PROJECT_SOURCE_DIR}/impl/broker/push_request.cpp
  ${PROJECT_SOURCE_DIR}/impl/frames.cpp ${PROJECT_SOURCE_DIR}/impl/hash.cpp ${PROJECT_SOURCE_DIR}/impl/uuid.cpp)
set(QDT_PUSH_REQUEST_FUZZ_LIBRARIES nlohmann_json::nlohmann_json PkgConfig::XXHASH)

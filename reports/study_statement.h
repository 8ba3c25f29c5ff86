#pragma once
// The top of a study's sweep page: the question the sweep file asks and the
// conclusions it states (its optional "question" and "conclusions"), so a
// reader meets the finding before the tables. The conclusions are the
// study's words, written when the study was last read: the page says so
// rather than presenting them as this run's verdict.
#include <nlohmann/json.hpp>
#include <string>

namespace qdt::reports {

// "" when the document (sim/study/sweep_run.h) carries neither.
std::string study_statement_html(const nlohmann::json& doc);
std::string study_statement_markdown(const nlohmann::json& doc);

}  // namespace qdt::reports

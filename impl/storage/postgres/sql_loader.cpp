#include "impl/storage/postgres/sql_loader.h"

#include <algorithm>
#include <cctype>
#include <cassert>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace qdt::impl::postgres {
namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// The dollar-quote opener at `at` ("$$" or "$tag$"), or empty.
std::string dollar_tag(const std::string& text, size_t at) {
  assert(text[at] == '$');
  if (at > 0 && identifier_char(text[at - 1])) return "";  // part of an identifier
  size_t end = at + 1;
  if (end < text.size() && text[end] >= '0' && text[end] <= '9') return "";  // a parameter, $1
  while (end < text.size() && identifier_char(text[end]) && text[end] != '$') ++end;
  if (end < text.size() && text[end] == '$') return text.substr(at, end - at + 1);
  return "";
}

// An SQL file is someone else's: a checkout's biggest is a few hundred kB.
constexpr std::uintmax_t kSqlFileBytesMax = std::uintmax_t{64} << 20;

// The file's text; a ClusterError naming the file and the reason when it is
// not a regular file (a FIFO would be read forever), is past the bound, or
// holds a NUL byte, which PostgreSQL's text cannot carry (a statement would
// silently end there).
std::string read_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error) throw ClusterError("postgres: " + path.string() + ": " + error.message());
  if (!fs::is_regular_file(status)) throw ClusterError("postgres: " + path.string() + ": not a regular file");
  const std::uintmax_t bytes = fs::file_size(path, error);
  if (error) throw ClusterError("postgres: " + path.string() + ": " + error.message());
  if (bytes > kSqlFileBytesMax) {
    throw ClusterError("postgres: " + path.string() + ": " + std::to_string(bytes) + " bytes, more than an SQL file's " +
                       std::to_string(kSqlFileBytesMax) + " qdt reads");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ClusterError("postgres: cannot read " + path.string());
  std::string text(static_cast<size_t>(bytes), '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<size_t>(in.gcount()));
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
    throw ClusterError("postgres: " + path.string() + ":" + std::to_string(line) +
                       ": a NUL byte, which PostgreSQL's text cannot hold (the statement would end there)");
  }
  return text;
}

}  // namespace

std::vector<SqlStatement> split_statements(const std::string& text) {
  std::vector<SqlStatement> out;
  std::string current;
  bool has_code = false;  // anything but whitespace and comments
  int64_t line = 1;
  int64_t start_line = 1;
  const auto code = [&](char c) {
    if (!has_code) start_line = line;
    has_code = true;
    current += c;
  };
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      while (i < n && text[i] != '\n') current += text[i++];
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      int depth = 0;
      do {
        if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
          ++depth;
          current += text[i++];
        } else if (text[i] == '*' && i + 1 < n && text[i + 1] == '/') {
          --depth;
          current += text[i++];
        } else if (text[i] == '\n') {
          ++line;
        }
        current += text[i++];
      } while (i < n && depth > 0);
      continue;
    }
    if (c == '\'' || c == '"') {
      // E'...' strings take backslash escapes; standard strings do not.
      const bool escapes = c == '\'' && i > 0 && (text[i - 1] == 'E' || text[i - 1] == 'e') &&
                           (i < 2 || !identifier_char(text[i - 2]));
      code(text[i++]);
      while (i < n) {
        const char d = text[i];
        if (d == '\n') ++line;
        if (escapes && d == '\\' && i + 1 < n) {
          current += text[i++];
          if (text[i] == '\n') ++line;
          current += text[i++];
          continue;
        }
        current += text[i++];
        if (d == c) {
          if (i < n && text[i] == c) {  // a doubled quote stands for itself
            current += text[i++];
            continue;
          }
          break;
        }
      }
      continue;
    }
    if (c == '$') {
      const std::string tag = dollar_tag(text, i);
      if (!tag.empty()) {
        const size_t close = text.find(tag, i + tag.size());
        const size_t end = close == std::string::npos ? n : close + tag.size();
        if (!has_code) start_line = line;
        has_code = true;
        line += std::count(text.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                           text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
        current.append(text, i, end - i);
        i = end;
        continue;
      }
    }
    if (c == ';') {
      if (has_code) out.push_back({current, start_line});
      current.clear();
      has_code = false;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      current += c;
    } else {
      code(c);
    }
    ++i;
  }
  if (has_code) out.push_back({current, start_line});
  return out;
}

std::vector<SqlFile> read_sql_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<SqlFile> files;
  const fs::path root(dir);
  std::error_code error;
  // Present but unreadable (a dangling symlink, a loop, a folder) is an
  // error, never skipped: the user named this folder to be loaded whole.
  if (fs::exists(fs::symlink_status(root / "schema.sql", error))) {
    files.push_back({"schema.sql", read_file(root / "schema.sql")});
  }
  std::vector<std::string> names;
  if (fs::is_directory(root / "procedures", error)) {
    fs::directory_iterator entries(root / "procedures", error);
    for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
      if (entries->path().extension() == ".sql") names.push_back(entries->path().filename());
    }
    if (error) throw ClusterError("postgres: " + (root / "procedures").string() + ": " + error.message());
  } else if (error) {
    throw ClusterError("postgres: " + (root / "procedures").string() + ": " + error.message());
  }
  std::sort(names.begin(), names.end());  // file-name order, byte-wise
  for (const std::string& name : names) {
    files.push_back({"procedures/" + name, read_file(root / "procedures" / name)});
  }
  if (files.empty()) throw ClusterError("postgres: " + dir + " holds neither schema.sql nor procedures/*.sql");
  return files;
}

std::vector<SqlFile> read_sql_files(const std::vector<std::string>& paths) {
  std::vector<SqlFile> files;
  for (const std::string& path : paths) files.push_back({path, read_file(path)});
  return files;
}

std::string defined_function(const std::string& statement) {
  size_t i = 0;
  const size_t n = statement.size();
  // Skip whitespace and comments before the first word.
  for (;;) {
    while (i < n && std::isspace(static_cast<unsigned char>(statement[i]))) ++i;
    if (statement.compare(i, 2, "--") == 0) {
      i = statement.find('\n', i);
      if (i == std::string::npos) return "";
    } else if (statement.compare(i, 2, "/*") == 0) {
      i = statement.find("*/", i);
      if (i == std::string::npos) return "";
      i += 2;
    } else {
      break;
    }
  }
  // Words up to the name, upper-cased: CREATE [OR REPLACE] FUNCTION|PROCEDURE.
  auto word = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(statement[i]))) ++i;
    std::string w;
    while (i < n && (std::isalnum(static_cast<unsigned char>(statement[i])) || statement[i] == '_')) {
      w += static_cast<char>(std::toupper(static_cast<unsigned char>(statement[i++])));
    }
    return w;
  };
  if (word() != "CREATE") return "";
  std::string kind = word();
  if (kind == "OR") {
    if (word() != "REPLACE") return "";
    kind = word();
  }
  if (kind != "FUNCTION" && kind != "PROCEDURE") return "";
  while (i < n && std::isspace(static_cast<unsigned char>(statement[i]))) ++i;
  // [schema.]name, each part plain (folded to lower case) or quoted.
  std::string name;
  for (;;) {
    name.clear();
    if (i < n && statement[i] == '"') {
      const size_t close = statement.find('"', i + 1);
      if (close == std::string::npos) return "";
      name = statement.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      while (i < n && (std::isalnum(static_cast<unsigned char>(statement[i])) || statement[i] == '_')) {
        name += static_cast<char>(std::tolower(static_cast<unsigned char>(statement[i++])));
      }
    }
    if (i < n && statement[i] == '.') {
      ++i;
      continue;
    }
    return name;
  }
}

std::vector<std::string> apply_sql(PGconn* conn, const std::vector<SqlFile>& files,
                                   const std::vector<std::string>* called) {
  std::vector<std::string> warnings;
  exec_blocking(conn, std::string("SET search_path = ") + kLoadSearchPath, "setting the load search_path");
  // Idempotent DDL raises NOTICEs: counted with the file and line that raised them.
  std::string source;
  attribute_notices(conn, &source);
  struct Detach {
    PGconn* conn;
    ~Detach() { attribute_notices(conn, nullptr); }
  } detach{conn};
  for (const SqlFile& file : files) {
    for (const SqlStatement& statement : split_statements(file.text)) {
      source = file.name + ":" + std::to_string(statement.line);
      PgResultPtr result(PQexec(conn, statement.text.c_str()));
      const ExecStatusType status = PQresultStatus(result.get());
      if (status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH) {
        // psql would stream the data after the statement; this loader sends statements only.
        if (status != PGRES_COPY_OUT) PQputCopyEnd(conn, "qdt's loader sends no COPY data");
        char* row = nullptr;
        while (status != PGRES_COPY_IN && PQgetCopyData(conn, &row, 0) > 0) PQfreemem(row);
        for (PGresult* rest = PQgetResult(conn); rest; rest = PQgetResult(conn)) PQclear(rest);
        throw ClusterError("postgres: " + file.name + ":" + std::to_string(statement.line) +
                           ": COPY from standard input or to standard output needs data psql would stream, which "
                           "qdt loads statement by statement without: write the rows as INSERT");
      }
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
        const char* primary = PQresultErrorField(result.get(), PG_DIAG_MESSAGE_PRIMARY);
        const std::string where = file.name + ":" + std::to_string(statement.line) + ": " +
                                  (primary ? primary : PQerrorMessage(conn));
        const std::string defined = defined_function(statement.text);
        if (called && !defined.empty() && std::find(called->begin(), called->end(), defined) == called->end()) {
          warnings.push_back(where + " (it defines " + defined + ", which the adapter never calls: skipped)");
          continue;
        }
        throw ClusterError("postgres: " + where);
      }
    }
  }
  exec_blocking(conn, "RESET search_path", "resetting the search_path");
  return warnings;
}

}  // namespace qdt::impl::postgres

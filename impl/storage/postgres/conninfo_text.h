#pragma once
// A server's connection string as qdt may show it: --pg-url names a server
// someone else runs, and its password must never reach a message, a
// journal, a page or a JSON summary.
#include <string>

namespace qdt::impl::postgres {

// `conninfo` (a URI, postgresql://user:secret@host/db?password=..., or
// key=value pairs) with every password replaced by ***. A string libpq
// cannot parse comes back as a placeholder, not as itself: it may hold one.
std::string redacted_conninfo(const std::string& conninfo);

}  // namespace qdt::impl::postgres

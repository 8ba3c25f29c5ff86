#include "sim/faults/power_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string_view>
#include <vector>

namespace qdt::sim::power_vfs {
namespace {

// What the disk holds for one path beyond its durable (real) bytes.
struct FileState {
  std::string path;                   // "" for a private temporary file
  std::map<int64_t, std::string> dirty;  // unsynced extents, disjoint
  int64_t size = 0;        // the size reads see
  int64_t valid_real = 0;  // leading real bytes not cut by an unsynced truncate
  bool durable = true;     // its directory entry survives a power loss
  uint64_t last_write_seq = 0;  // the order of its last unsynced write, over all files
  int64_t last_write_offset = 0;
  std::string last_write;  // that write's bytes (the one that may tear)
};

struct PowerFile {
  sqlite3_file base;  // must come first: SQLite sees this
  std::shared_ptr<FileState> state;
  bool dead = false;
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

std::mutex registry_mutex;
std::map<std::string, std::shared_ptr<FileState>> files;  // by full path
std::set<PowerFile*> handles;                             // every open handle
uint64_t write_seq = 0;
sqlite3_vfs* real_vfs = nullptr;

bool under(const std::string& path, const std::string& folder) {
  return !folder.empty() && path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         path[folder.size()] == '/';
}

// Writes `data` at `offset` into the disjoint extents, merging what it touches.
void put(std::map<int64_t, std::string>& extents, int64_t offset, std::string_view data) {
  int64_t start = offset;
  int64_t end = offset + static_cast<int64_t>(data.size());
  auto it = extents.upper_bound(offset);
  if (it != extents.begin()) {
    auto before = std::prev(it);
    if (before->first + static_cast<int64_t>(before->second.size()) >= offset) it = before;
  }
  std::vector<std::pair<int64_t, std::string>> touched;
  while (it != extents.end() && it->first <= end) {
    start = std::min(start, it->first);
    end = std::max(end, it->first + static_cast<int64_t>(it->second.size()));
    touched.emplace_back(it->first, std::move(it->second));
    it = extents.erase(it);
  }
  std::string merged(static_cast<size_t>(end - start), '\0');
  for (const auto& [o, bytes] : touched) merged.replace(static_cast<size_t>(o - start), bytes.size(), bytes);
  merged.replace(static_cast<size_t>(offset - start), data.size(), data);
  extents.emplace(start, std::move(merged));
}

void cut(std::map<int64_t, std::string>& extents, int64_t size) {
  for (auto it = extents.lower_bound(size); it != extents.end();) it = extents.erase(it);
  if (extents.empty()) return;
  auto last = std::prev(extents.end());
  const int64_t end = last->first + static_cast<int64_t>(last->second.size());
  if (end > size) last->second.resize(static_cast<size_t>(size - last->first));
}

PowerFile* self(sqlite3_file* f) { return reinterpret_cast<PowerFile*>(f); }

int power_close(sqlite3_file* f) {
  PowerFile* p = self(f);
  {
    std::lock_guard lock(registry_mutex);
    handles.erase(p);
  }
  const int rc = p->real()->pMethods ? p->real()->pMethods->xClose(p->real()) : SQLITE_OK;
  p->state.reset();
  p->~PowerFile();
  return rc;
}

int power_read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  PowerFile* p = self(f);
  if (p->dead) return SQLITE_IOERR_READ;
  FileState& s = *p->state;
  auto* bytes = static_cast<char*>(out);
  std::memset(bytes, 0, static_cast<size_t>(amount));
  if (offset < s.valid_real) {
    const int want = static_cast<int>(std::min<int64_t>(amount, s.valid_real - offset));
    const int rc = p->real()->pMethods->xRead(p->real(), bytes, want, offset);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return rc;
  }
  const int64_t end = offset + amount;
  auto it = s.dirty.upper_bound(offset);
  if (it != s.dirty.begin()) --it;
  for (; it != s.dirty.end() && it->first < end; ++it) {
    const int64_t from = std::max<int64_t>(offset, it->first);
    const int64_t to = std::min<int64_t>(end, it->first + static_cast<int64_t>(it->second.size()));
    if (from < to) std::memcpy(bytes + (from - offset), it->second.data() + (from - it->first), static_cast<size_t>(to - from));
  }
  if (end <= s.size) return SQLITE_OK;
  // SQLite requires the bytes past the end to be zero on a short read.
  const int64_t keep = std::max<int64_t>(0, s.size - offset);
  std::memset(bytes + keep, 0, static_cast<size_t>(amount - keep));
  return SQLITE_IOERR_SHORT_READ;
}

int power_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  PowerFile* p = self(f);
  if (p->dead) return SQLITE_IOERR_WRITE;
  FileState& s = *p->state;
  const std::string_view bytes(static_cast<const char*>(data), static_cast<size_t>(amount));
  put(s.dirty, offset, bytes);
  s.size = std::max<int64_t>(s.size, offset + amount);
  std::lock_guard lock(registry_mutex);
  s.last_write_seq = ++write_seq;
  s.last_write_offset = offset;
  s.last_write.assign(bytes);
  return SQLITE_OK;
}

int power_truncate(sqlite3_file* f, sqlite3_int64 size) {
  PowerFile* p = self(f);
  if (p->dead) return SQLITE_IOERR_TRUNCATE;
  FileState& s = *p->state;
  s.size = size;
  s.valid_real = std::min<int64_t>(s.valid_real, size);
  cut(s.dirty, size);
  return SQLITE_OK;
}

// Makes the file's overlay durable. The real fsync is skipped: durability is
// what this model says it is, and a real fsync per commit only costs time.
int power_sync(sqlite3_file* f, int flags) {
  PowerFile* p = self(f);
  if (p->dead) return SQLITE_IOERR_FSYNC;
  FileState& s = *p->state;
  sqlite3_file* real = p->real();
  int rc = real->pMethods->xTruncate(real, s.valid_real);
  for (auto it = s.dirty.begin(); rc == SQLITE_OK && it != s.dirty.end(); ++it) {
    rc = real->pMethods->xWrite(real, it->second.data(), static_cast<int>(it->second.size()), it->first);
  }
  if (rc == SQLITE_OK) rc = real->pMethods->xTruncate(real, s.size);
  if (rc != SQLITE_OK) return rc;
  s.dirty.clear();
  s.valid_real = s.size;
  s.durable = true;
  s.last_write.clear();
  s.last_write_seq = 0;
  return SQLITE_OK;
}

int power_file_size(sqlite3_file* f, sqlite3_int64* size) {
  PowerFile* p = self(f);
  if (p->dead) return SQLITE_IOERR_FSTAT;
  *size = p->state->size;
  return SQLITE_OK;
}

int power_lock(sqlite3_file* f, int level) {
  PowerFile* p = self(f);
  return p->dead ? SQLITE_IOERR_LOCK : p->real()->pMethods->xLock(p->real(), level);
}

int power_unlock(sqlite3_file* f, int level) {
  PowerFile* p = self(f);
  return p->dead ? SQLITE_OK : p->real()->pMethods->xUnlock(p->real(), level);
}

int power_check_reserved(sqlite3_file* f, int* out) {
  PowerFile* p = self(f);
  if (p->dead) {
    *out = 0;
    return SQLITE_OK;
  }
  return p->real()->pMethods->xCheckReservedLock(p->real(), out);
}

// Size hints and chunk sizes would grow the real file behind the overlay's
// back: none is supported, which SQLite treats as "not implemented".
int power_file_control(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }

int power_sector_size(sqlite3_file* f) { return self(f)->real()->pMethods->xSectorSize(self(f)->real()); }

// No atomic or safe-append promises: SQLite must assume the worst of a crash.
int power_device_characteristics(sqlite3_file*) { return 0; }

const sqlite3_io_methods kMethods = {
    1,  // no shared memory: qdt uses a rollback journal, never WAL
    power_close, power_read, power_write, power_truncate, power_sync, power_file_size, power_lock, power_unlock,
    power_check_reserved, power_file_control, power_sector_size, power_device_characteristics,
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

int power_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  auto* p = new (f) PowerFile{};
  p->base.pMethods = nullptr;
  bool existed = false;
  if (name != nullptr) {
    int exists = 0;
    real_vfs->xAccess(real_vfs, name, SQLITE_ACCESS_EXISTS, &exists);
    existed = exists != 0;
  }
  const int rc = real_vfs->xOpen(real_vfs, name, p->real(), flags, out_flags);
  if (rc != SQLITE_OK) {
    p->~PowerFile();
    return rc;
  }
  std::lock_guard lock(registry_mutex);
  std::shared_ptr<FileState>* slot = nullptr;
  std::shared_ptr<FileState> fresh;
  if (name != nullptr) {
    slot = &files[name];
  } else {
    slot = &fresh;
  }
  if (!*slot) {
    *slot = std::make_shared<FileState>();
    (*slot)->path = name != nullptr ? name : "";
    sqlite3_int64 real_size = 0;
    p->real()->pMethods->xFileSize(p->real(), &real_size);
    (*slot)->size = real_size;
    (*slot)->valid_real = real_size;
    (*slot)->durable = existed || name == nullptr;
  }
  p->state = *slot;
  handles.insert(p);
  p->base.pMethods = &kMethods;
  return SQLITE_OK;
}

int power_delete(sqlite3_vfs*, const char* name, int sync_dir) {
  {
    std::lock_guard lock(registry_mutex);
    files.erase(name);
  }
  return real_vfs->xDelete(real_vfs, name, sync_dir);
}

void keep_prefix(const FileState& s, uint64_t bytes) {
  const int fd = ::open(s.path.c_str(), O_WRONLY);
  if (fd < 0) return;
  const ssize_t wrote = ::pwrite(fd, s.last_write.data(), bytes, s.last_write_offset);
  (void)wrote;
  ::close(fd);
}

}  // namespace

const char* install() {
  static const char* name = [] {
    real_vfs = sqlite3_vfs_find(nullptr);
    assert(real_vfs != nullptr);
    static sqlite3_vfs vfs = *real_vfs;  // every other method is the unix VFS's own
    vfs.zName = kName;
    vfs.szOsFile = static_cast<int>(sizeof(PowerFile)) + real_vfs->szOsFile;
    vfs.pNext = nullptr;
    vfs.xOpen = power_open;
    vfs.xDelete = power_delete;
    const int rc = sqlite3_vfs_register(&vfs, 0);
    assert(rc == SQLITE_OK);
    (void)rc;
    return kName;
  }();
  return name;
}

LossReport power_loss(const std::string& folder, Rng& rng, bool torn) {
  std::lock_guard lock(registry_mutex);
  LossReport report;
  for (PowerFile* h : handles) {
    if (h->dead || !h->state || !under(h->state->path, folder)) continue;
    // A dead machine holds no lock: release the real ones before forgetting.
    h->real()->pMethods->xUnlock(h->real(), SQLITE_LOCK_NONE);
    h->dead = true;
    report.handles_killed++;
  }
  // The write that tears is the last unsynced one of a file that survives.
  const FileState* tearing = nullptr;
  for (const auto& [path, s] : files) {
    if (!under(path, folder)) continue;
    for (const auto& [o, bytes] : s->dirty) report.bytes_dropped += bytes.size();
    if (s->last_write_seq > 0) report.writes_dropped++;
    if (s->durable && s->last_write_seq > 0 && (!tearing || s->last_write_seq > tearing->last_write_seq)) {
      tearing = s.get();
    }
  }
  if (torn && tearing != nullptr && !tearing->last_write.empty()) {
    report.torn_bytes_kept = rng.below(tearing->last_write.size());
    if (report.torn_bytes_kept > 0) keep_prefix(*tearing, report.torn_bytes_kept);
  }
  for (auto it = files.begin(); it != files.end();) {
    if (!under(it->first, folder)) {
      ++it;
      continue;
    }
    if (!it->second->durable) {
      ::unlink(it->first.c_str());
      report.files_vanished++;
    }
    it = files.erase(it);  // the next open reads what the disk kept
  }
  return report;
}

void forget(const std::string& folder) {
  std::lock_guard lock(registry_mutex);
  for (auto it = files.begin(); it != files.end();) it = under(it->first, folder) ? files.erase(it) : std::next(it);
}

uint64_t unsynced_bytes(const std::string& path) {
  std::lock_guard lock(registry_mutex);
  auto it = files.find(path);
  if (it == files.end()) return 0;
  uint64_t total = 0;
  for (const auto& [o, bytes] : it->second->dirty) total += bytes.size();
  return total;
}

}  // namespace qdt::sim::power_vfs

/* The C ABI `queen-cache-v1` (docs/cache-abi.md): a broker dedup cache in
 * any language, loaded by qdt with --cache-lib FILE.so, or built by qdt from
 * a Rust `dedup.rs` with --cache-impl. Plain C so any toolchain can
 * implement it. Every time is passed in (Unix milliseconds); hashes are 16
 * bytes each, the xxh3-128 of the transactionId, big-endian, packed; `pid`
 * is a partition's id, `pid_len` bytes, not NUL-terminated. Every call but
 * the version query returns 0 on success, nonzero when the cache failed
 * (a Rust panic): qdt then ends the run with an error. */
#ifndef QDT_QUEEN_CACHE_V1_H
#define QDT_QUEEN_CACHE_V1_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QUEEN_CACHE_ABI_VERSION 1u

enum queen_cache_need { QUEEN_CACHE_NEED_NONE = 0, QUEEN_CACHE_NEED_FULL = 1, QUEEN_CACHE_NEED_SPAN = 2 };
enum queen_cache_check { QUEEN_CACHE_VERIFIED = 0, QUEEN_CACHE_LOCAL_DUPLICATE = 1 };

/* One log_txns row: offsets [base_offset, end_offset], one hash per offset. */
typedef struct queen_cache_row {
  int64_t base_offset;
  int64_t end_offset;
  int64_t created_ms;
  const uint8_t* hashes; /* 16 * (end_offset - base_offset + 1) bytes */
  size_t hashes_len;     /* in bytes */
} queen_cache_row;

typedef struct queen_cache queen_cache; /* opaque */

/* QUEEN_CACHE_ABI_VERSION of the library; qdt refuses any other. */
uint32_t queen_cache_abi_version(void);
/* DedupCache::new(max_mb, enabled); NULL when it cannot be made. */
queen_cache* queen_cache_create(uint64_t max_mb, int32_t enabled);
void queen_cache_destroy(queen_cache* cache);
int32_t queen_cache_expire(queen_cache* cache, const char* pid, size_t pid_len, int64_t window_ms, int64_t now_ms);
/* *need: a queen_cache_need; *from and *to are set for a span. */
int32_t queen_cache_needs_hydration(queen_cache* cache, const char* pid, size_t pid_len, int64_t now_ms,
                                    int32_t* need, int64_t* from, int64_t* to);
int32_t queen_cache_hydrate(queen_cache* cache, const char* pid, size_t pid_len, const queen_cache_row* rows,
                            size_t row_count, int64_t window_start_ms, int64_t current_last_offset, int64_t now_ms);
/* *check: a queen_cache_check; *verified: the watermark when VERIFIED,
 * *duplicates: how many input hashes the cache holds when LOCAL_DUPLICATE. */
int32_t queen_cache_verified_for_push(queen_cache* cache, const char* pid, size_t pid_len, const uint8_t* hashes,
                                      size_t hash_count, int64_t now_ms, int32_t* check, int64_t* verified,
                                      size_t* duplicates);
int32_t queen_cache_on_push_committed(queen_cache* cache, const char* pid, size_t pid_len, int64_t base,
                                      const uint8_t* hashes, size_t hash_count, int64_t now_ms);

#ifdef __cplusplus
}
#endif

#endif /* QDT_QUEEN_CACHE_V1_H */

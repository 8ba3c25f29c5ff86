/* A queen-cache-v1 library of qdt's own in C (docs/cache-abi.md), for the
 * tests of --cache-lib: it holds nothing and never vouches, the one cache
 * that is sound without any state. Built three ways: whole; with
 * QDT_WRONG_ABI, answering another ABI version; with QDT_PARTIAL, lacking a
 * symbol. */
#include <stdlib.h>

#include "sim/world/queen_cache_v1.h"

struct queen_cache {
  int enabled;
};

uint32_t queen_cache_abi_version(void) {
#ifdef QDT_WRONG_ABI
  return QUEEN_CACHE_ABI_VERSION + 1;
#else
  return QUEEN_CACHE_ABI_VERSION;
#endif
}

queen_cache* queen_cache_create(uint64_t max_mb, int32_t enabled) {
  (void)max_mb;
  queen_cache* c = malloc(sizeof *c);
  if (c) c->enabled = enabled;
  return c;
}

void queen_cache_destroy(queen_cache* cache) { free(cache); }

int32_t queen_cache_expire(queen_cache* cache, const char* pid, size_t pid_len, int64_t window_ms, int64_t now_ms) {
  (void)cache, (void)pid, (void)pid_len, (void)window_ms, (void)now_ms;
  return 0;
}

int32_t queen_cache_needs_hydration(queen_cache* cache, const char* pid, size_t pid_len, int64_t now_ms,
                                    int32_t* need, int64_t* from, int64_t* to) {
  (void)cache, (void)pid, (void)pid_len, (void)now_ms, (void)from, (void)to;
  *need = QUEEN_CACHE_NEED_NONE;
  return 0;
}

int32_t queen_cache_hydrate(queen_cache* cache, const char* pid, size_t pid_len, const queen_cache_row* rows,
                            size_t row_count, int64_t window_start_ms, int64_t current_last_offset, int64_t now_ms) {
  (void)cache, (void)pid, (void)pid_len, (void)rows, (void)row_count, (void)window_start_ms;
  (void)current_last_offset, (void)now_ms;
  return 0;
}

int32_t queen_cache_verified_for_push(queen_cache* cache, const char* pid, size_t pid_len, const uint8_t* hashes,
                                      size_t hash_count, int64_t now_ms, int32_t* check, int64_t* verified,
                                      size_t* duplicates) {
  (void)cache, (void)pid, (void)pid_len, (void)hashes, (void)hash_count, (void)now_ms, (void)duplicates;
  *check = QUEEN_CACHE_VERIFIED;
  *verified = -1;
  return 0;
}

#ifndef QDT_PARTIAL
int32_t queen_cache_on_push_committed(queen_cache* cache, const char* pid, size_t pid_len, int64_t base,
                                      const uint8_t* hashes, size_t hash_count, int64_t now_ms) {
  (void)cache, (void)pid, (void)pid_len, (void)base, (void)hashes, (void)hash_count, (void)now_ms;
  return 0;
}
#endif

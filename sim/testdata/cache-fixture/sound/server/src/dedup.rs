// qdt's own broker dedup cache in the shape of the queen-cache-v1 interface
// (docs/semantics.md §10.1), written for qdt's tests from §2.11: a
// per-partition ring of committed segments and a refcounted hash set. Its only
// load-bearing output is the watermark: "no hash of this push occurs at or
// below it within the window"; every doubt answers -1.
//
// Soundness does not rest on the caller's clock: expiry uses the smaller of
// the caller's `now_ms` and the newest storage time this cache has seen (a
// lower bound of storage's clock), and hydration keeps every row it is given.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

#[derive(Debug, PartialEq, Eq)]
pub enum PushCheck {
    LocalDuplicate(Vec<usize>),
    Verified(i64),
}

#[derive(Debug, PartialEq, Eq)]
pub enum HydrationNeed {
    Full,
    Span { from: i64, to: i64 },
}

const BYTES_PER_HASH: usize = 16;
const BYTES_PER_SEGMENT: usize = 64;
const BYTES_PER_PARTITION: usize = 256;

struct Segment {
    base: i64,
    created_ms: i64,
    hashes: Vec<u128>,
}

struct Partition {
    verified_upto: i64,
    gap: Option<(i64, i64)>,
    rebuild: bool,
    segments: VecDeque<Segment>,
    counts: HashMap<u128, u32>,
    last_used: u64,
}

impl Partition {
    fn new(tick: u64) -> Partition {
        Partition { verified_upto: -1, gap: None, rebuild: false, segments: VecDeque::new(), counts: HashMap::new(), last_used: tick }
    }
    fn bytes(&self) -> usize {
        let hashes: usize = self.segments.iter().map(|s| s.hashes.len()).sum();
        BYTES_PER_PARTITION + self.segments.len() * BYTES_PER_SEGMENT + hashes * BYTES_PER_HASH
    }
    fn add(&mut self, base: i64, created_ms: i64, hashes: Vec<u128>) {
        for h in &hashes {
            *self.counts.entry(*h).or_insert(0) += 1;
        }
        self.segments.push_back(Segment { base, created_ms, hashes });
    }
    fn drop_front(&mut self) {
        if let Some(s) = self.segments.pop_front() {
            for h in &s.hashes {
                let gone = match self.counts.get_mut(h) {
                    Some(n) => {
                        *n -= 1;
                        *n == 0
                    }
                    None => false,
                };
                if gone {
                    self.counts.remove(h);
                }
            }
        }
    }
}

struct State {
    partitions: HashMap<String, Partition>,
    tick: u64,
    storage_newest_ms: Option<i64>,
}

pub struct DedupCache {
    enabled: bool,
    max_bytes: usize,
    state: Mutex<State>,
}

fn parse_hashes(blob: &[u8]) -> Option<Vec<u128>> {
    if blob.len() % 16 != 0 {
        return None;
    }
    Some(blob.chunks(16).map(|c| {
        let mut b = [0u8; 16];
        b.copy_from_slice(c);
        u128::from_be_bytes(b)
    }).collect())
}

impl DedupCache {
    pub fn new(max_mb: usize, enabled: bool) -> DedupCache {
        DedupCache {
            enabled,
            max_bytes: max_mb.max(1) * 1024 * 1024,
            state: Mutex::new(State { partitions: HashMap::new(), tick: 0, storage_newest_ms: None }),
        }
    }

    pub fn expire(&self, pid: &str, window_ms: i64, now_ms: i64) {
        let mut st = self.state.lock().unwrap();
        let floor = match st.storage_newest_ms {
            Some(f) => f,
            None => return,
        };
        let cutoff = now_ms.min(floor) - window_ms;
        if let Some(p) = st.partitions.get_mut(pid) {
            while p.segments.front().map_or(false, |s| s.created_ms < cutoff) {
                p.drop_front();
            }
        }
    }

    pub fn needs_hydration(&self, pid: &str, now_ms: i64) -> Option<HydrationNeed> {
        if !self.enabled {
            return None;
        }
        let st = self.state.lock().unwrap();
        match st.partitions.get(pid) {
            None => Some(HydrationNeed::Full),
            Some(p) if p.rebuild => Some(HydrationNeed::Full),
            Some(p) => p.gap.map(|(from, to)| HydrationNeed::Span { from, to }),
        }
    }

    pub fn hydrate(&self, pid: &str, rows: Vec<(i64, i64, i64, Vec<u8>)>, window_start_ms: i64,
                   current_last_offset: i64, now_ms: i64) {
        if !self.enabled {
            return;
        }
        let mut st = self.state.lock().unwrap();
        st.tick += 1;
        let mut p = Partition::new(st.tick);
        let mut prev_end = -1i64;
        for (base, end, created_ms, blob) in rows {
            let ok = match parse_hashes(&blob) {
                Some(hashes) if hashes.len() as i64 == end - base + 1 && base > prev_end && end <= current_last_offset => {
                    st.storage_newest_ms = Some(st.storage_newest_ms.map_or(created_ms, |f| f.max(created_ms)));
                    p.add(base, created_ms, hashes);
                    true
                }
                _ => false,
            };
            if !ok {
                p.rebuild = true;
                break;
            }
            prev_end = end;
        }
        p.verified_upto = current_last_offset;
        st.partitions.insert(pid.to_string(), p);
        self.evict(&mut st, pid);
    }

    pub fn verified_for_push(&self, pid: &str, hashes: &[[u8; 16]], now_ms: i64) -> PushCheck {
        if !self.enabled {
            return PushCheck::Verified(-1);
        }
        let mut st = self.state.lock().unwrap();
        st.tick += 1;
        let tick = st.tick;
        let p = match st.partitions.get_mut(pid) {
            Some(p) => p,
            None => return PushCheck::Verified(-1),
        };
        p.last_used = tick;
        let held: Vec<usize> = hashes.iter().enumerate()
            .filter(|(_, h)| p.counts.contains_key(&u128::from_be_bytes(**h)))
            .map(|(i, _)| i)
            .collect();
        if !held.is_empty() {
            return PushCheck::LocalDuplicate(held);
        }
        if p.rebuild || p.gap.is_some() {
            return PushCheck::Verified(-1);
        }
        PushCheck::Verified(p.verified_upto)
    }

    pub fn on_push_committed(&self, pid: &str, base: i64, hashes: &[[u8; 16]], now_ms: i64) {
        if !self.enabled || hashes.is_empty() {
            return;
        }
        let mut st = self.state.lock().unwrap();
        st.storage_newest_ms = Some(st.storage_newest_ms.map_or(now_ms, |f| f.max(now_ms)));
        st.tick += 1;
        let tick = st.tick;
        let p = match st.partitions.get_mut(pid) {
            Some(p) => p,
            None => return,
        };
        p.last_used = tick;
        if p.rebuild {
            return;
        }
        let hs: Vec<u128> = hashes.iter().map(|h| u128::from_be_bytes(*h)).collect();
        let end = base + hs.len() as i64 - 1;
        if base <= p.verified_upto {
            // The same segment a hydration already read is no news; anything else is.
            let same = p.segments.iter().any(|s| s.base == base && s.hashes == hs);
            if !same {
                p.rebuild = true;
            }
            return;
        }
        if base > p.verified_upto + 1 {
            let from = p.verified_upto + 1;
            p.gap = Some(match p.gap {
                Some((f, _)) => (f.min(from), base - 1),
                None => (from, base - 1),
            });
        }
        p.add(base, now_ms, hs);
        p.verified_upto = end;
        self.evict(&mut st, pid);
    }

    // Whole partitions, least recently used first, until the budget holds;
    // the one just touched goes last (and alone over budget, it goes too).
    fn evict(&self, st: &mut State, keep: &str) {
        loop {
            let total: usize = st.partitions.values().map(|p| p.bytes()).sum();
            if total <= self.max_bytes {
                return;
            }
            let victim = st.partitions.iter()
                .filter(|(k, _)| k.as_str() != keep || st.partitions.len() == 1)
                .min_by_key(|(k, p)| (p.last_used, (*k).clone()))
                .map(|(k, _)| k.clone());
            match victim {
                Some(k) => {
                    st.partitions.remove(&k);
                }
                None => return,
            }
        }
    }
}

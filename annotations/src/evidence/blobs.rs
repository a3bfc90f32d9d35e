//! The engine's caches: blob contents by blob id (bounded by bytes), file listings by commit,
//! and per-blob scan results by pattern set.
//!
//! Blob ids name content, so a cached blob is valid for every commit and every clone that holds
//! it: nearby base commits share almost all of their blobs and only the changed ones are read.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use git2::Oid;

use super::repository::FileEntry;

/// What the cache knows of one blob.
#[derive(Debug, Clone)]
pub(crate) enum BlobText {
    /// Text content.
    Text(Arc<[u8]>),
    /// A binary blob (NUL in its first 8,000 bytes): only its size is kept.
    Binary {
        /// Size in bytes.
        size: usize,
    },
}

/// Bookkeeping cost of one entry beyond its content, so that a cache of many tiny or binary
/// blobs still respects the bound.
const ENTRY_OVERHEAD: usize = 64;
/// File listings kept, most recent first.
const LISTINGS_KEPT: usize = 32;
/// Pattern sets whose per-blob scan results are kept.
const MEMO_SETS_KEPT: usize = 4;

/// Sizes and counters of the engine's caches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheStats {
    /// Blobs held (text and binary markers).
    pub blobs: usize,
    /// Bytes counted against the bound.
    pub bytes: usize,
    /// The bound in bytes.
    pub bound: usize,
    /// Blob look-ups served from the cache since the engine started.
    pub hits: u64,
    /// Blob look-ups that had to read the object database.
    pub misses: u64,
    /// Blobs evicted to stay under the bound.
    pub evictions: u64,
    /// Commits whose file listing is cached.
    pub listings: usize,
}

/// Scan results per blob for the most recent pattern sets.
#[derive(Debug)]
pub(crate) struct Memo<T> {
    sets: VecDeque<(u64, HashMap<Oid, Arc<T>>)>,
}

impl<T> Memo<T> {
    fn new() -> Memo<T> {
        Memo {
            sets: VecDeque::new(),
        }
    }

    pub(crate) fn get(&self, fingerprint: u64, blob: Oid) -> Option<Arc<T>> {
        self.sets
            .iter()
            .find(|(f, _)| *f == fingerprint)
            .and_then(|(_, map)| map.get(&blob).cloned())
    }

    pub(crate) fn insert(&mut self, fingerprint: u64, blob: Oid, scan: Arc<T>) {
        if let Some(pos) = self.sets.iter().position(|(f, _)| *f == fingerprint) {
            // Most recently used set first, so truncation drops the stalest.
            if pos != 0
                && let Some(set) = self.sets.remove(pos)
            {
                self.sets.push_front(set);
            }
        } else {
            self.sets.push_front((fingerprint, HashMap::new()));
            self.sets.truncate(MEMO_SETS_KEPT);
        }
        if let Some((_, map)) = self.sets.front_mut() {
            map.insert(blob, scan);
        }
    }
}

/// The cache itself; the engine holds it behind a mutex.
#[derive(Debug)]
pub(crate) struct BlobCache {
    bound: usize,
    bytes: usize,
    tick: u64,
    blobs: HashMap<Oid, (BlobText, u64)>,
    listings: VecDeque<(Oid, Arc<Vec<FileEntry>>)>,
    pub(crate) term_scans: Memo<super::sweep::BlobScan>,
    pub(crate) near_scans: Memo<super::candidates::NearScan>,
    hits: u64,
    misses: u64,
    evictions: u64,
}

impl BlobCache {
    pub(crate) fn new(bound: usize) -> BlobCache {
        BlobCache {
            bound,
            bytes: 0,
            tick: 0,
            blobs: HashMap::new(),
            listings: VecDeque::new(),
            term_scans: Memo::new(),
            near_scans: Memo::new(),
            hits: 0,
            misses: 0,
            evictions: 0,
        }
    }

    /// True when the cache keeps anything at all.
    pub(crate) fn enabled(&self) -> bool {
        self.bound > 0
    }

    pub(crate) fn get(&mut self, blob: Oid) -> Option<BlobText> {
        self.tick += 1;
        let tick = self.tick;
        match self.blobs.get_mut(&blob) {
            Some((text, used)) => {
                *used = tick;
                self.hits += 1;
                Some(text.clone())
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    pub(crate) fn insert(&mut self, blob: Oid, text: BlobText) {
        let cost = cost_of(&text);
        // A blob bigger than a quarter of the bound would evict most of the cache for one file.
        if !self.enabled() || cost > self.bound / 4 || self.blobs.contains_key(&blob) {
            return;
        }
        self.tick += 1;
        self.bytes += cost;
        self.blobs.insert(blob, (text, self.tick));
        if self.bytes > self.bound {
            self.evict();
        }
    }

    /// Evicts least recently used blobs down to 90% of the bound, in one batch so that a sweep
    /// over a repository larger than the bound does not sort on every insert.
    fn evict(&mut self) {
        let target = self.bound / 10 * 9;
        let mut by_age: Vec<(u64, Oid, usize)> = self
            .blobs
            .iter()
            .map(|(oid, (text, used))| (*used, *oid, cost_of(text)))
            .collect();
        by_age.sort_unstable_by_key(|(used, _, _)| *used);
        for (_, oid, cost) in by_age {
            if self.bytes <= target {
                break;
            }
            self.blobs.remove(&oid);
            self.bytes -= cost;
            self.evictions += 1;
        }
    }

    pub(crate) fn listing(&mut self, commit: Oid) -> Option<Arc<Vec<FileEntry>>> {
        let pos = self.listings.iter().position(|(c, _)| *c == commit)?;
        let entry = self.listings.remove(pos)?;
        let files = entry.1.clone();
        self.listings.push_front(entry);
        Some(files)
    }

    pub(crate) fn insert_listing(&mut self, commit: Oid, files: Arc<Vec<FileEntry>>) {
        if !self.enabled() {
            return;
        }
        self.listings.retain(|(c, _)| *c != commit);
        self.listings.push_front((commit, files));
        self.listings.truncate(LISTINGS_KEPT);
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            blobs: self.blobs.len(),
            bytes: self.bytes,
            bound: self.bound,
            hits: self.hits,
            misses: self.misses,
            evictions: self.evictions,
            listings: self.listings.len(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.blobs.clear();
        self.bytes = 0;
        self.listings.clear();
        self.term_scans = Memo::new();
        self.near_scans = Memo::new();
    }
}

fn cost_of(text: &BlobText) -> usize {
    match text {
        BlobText::Text(bytes) => bytes.len() + ENTRY_OVERHEAD,
        BlobText::Binary { .. } => ENTRY_OVERHEAD,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn oid(n: u8) -> Oid {
        Oid::from_bytes(&[n; 20]).unwrap()
    }

    #[test]
    fn cache_stays_under_its_bound_and_evicts_oldest_first() {
        let mut cache = BlobCache::new(1000);
        for n in 0..10u8 {
            cache.insert(oid(n), BlobText::Text(Arc::from(vec![b'x'; 136])));
        }
        let stats = cache.stats();
        assert!(
            stats.bytes <= 1000,
            "the cache never holds more than its bound"
        );
        assert!(
            cache.get(oid(0)).is_none(),
            "the oldest blob is evicted first"
        );
        assert!(cache.get(oid(9)).is_some(), "the newest blob is kept");
    }

    #[test]
    fn memo_keeps_recent_pattern_sets() {
        let mut memo: Memo<u32> = Memo::new();
        memo.insert(1, oid(1), Arc::new(10));
        memo.insert(1, oid(2), Arc::new(20));
        assert_eq!(
            memo.get(1, oid(1)).as_deref(),
            Some(&10),
            "inserting into the newest set keeps it"
        );
        for set in 2..=(MEMO_SETS_KEPT as u64) {
            memo.insert(set, oid(3), Arc::new(0));
        }
        memo.insert(1, oid(3), Arc::new(30));
        memo.insert(99, oid(3), Arc::new(0));
        assert_eq!(
            memo.get(1, oid(2)).as_deref(),
            Some(&20),
            "a set used again moves to the front"
        );
        assert!(
            memo.get(2, oid(3)).is_none(),
            "the least recently used set is dropped"
        );
    }

    #[test]
    fn disabled_cache_keeps_nothing() {
        let mut cache = BlobCache::new(0);
        cache.insert(oid(1), BlobText::Binary { size: 3 });
        assert!(cache.get(oid(1)).is_none());
    }
}

//! The engine's cache, keyed by object id and bounded by bytes: blob contents, per-blob scan
//! results for every term (and every airtight candidate) a blob was ever searched for, and
//! each tree's own entries (its files and folders, not what lies below: a commit's listing is
//! assembled from them, so a file is held once however deep it is).
//!
//! Object ids name content, so everything cached is valid for every commit and every clone that
//! holds the object. Nearby base commits share almost all of their trees and blobs: listing
//! one re-reads only the trees that changed, and a task whose terms were searched before scans
//! only the blobs that changed; a task with new terms scans the cached contents for those terms
//! alone.
//!
//! Everything kept counts against the bound. When the bound is passed, least recently used blob
//! contents go first (scan results are far smaller and spare a re-read for known terms), then
//! least recently used scan results and listings, down to 90% of the bound.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use git2::Oid;

use super::paths::TreeEntry;

/// What the cache knows of one blob's content.
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

/// Bookkeeping cost of one entry beyond what it holds (hash-map slot, headers), so that a cache
/// of many tiny or binary blobs still respects the bound.
const ENTRY_OVERHEAD: usize = 96;

/// Hashes object ids by folding their bytes eight at a time: they are SHA digests, already
/// uniform, and SipHash over every one of a commit's blobs showed in profiles.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct OidHasher(u64);

impl Hasher for OidHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(23) ^ u64::from_le_bytes(word);
        }
    }
}

/// A map keyed by object id.
pub(crate) type OidMap<V> = HashMap<Oid, V, BuildHasherDefault<OidHasher>>;

/// Sizes and counters of the engine's cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheStats {
    /// Blobs with cached content (text and binary markers).
    pub blobs: usize,
    /// Bytes counted against the bound: contents, scan results, listings and interned terms.
    pub bytes: usize,
    /// The bound in bytes.
    pub bound: usize,
    /// Blob look-ups served from the cache since the engine started.
    pub hits: u64,
    /// Blob look-ups that had to read the object database.
    pub misses: u64,
    /// Entries (contents, scan results, listings) evicted to stay under the bound.
    pub evictions: u64,
    /// Trees whose file listing is cached.
    pub listings: usize,
    /// Of `bytes`, those counted for blob contents.
    pub content_bytes: usize,
    /// Of `bytes`, those counted for listings.
    pub listing_bytes: usize,
}

/// A per-blob result that knows its own heap size.
pub(crate) trait Costed {
    /// Heap bytes held beyond `size_of::<Self>()`.
    fn heap_bytes(&self) -> usize;
}

/// The results of scanning one blob for a growing set of queries (terms or candidates), each
/// query named by the id the cache interned it under.
#[derive(Debug, Clone)]
pub(crate) struct ScanIndex<T> {
    /// The query ids the blob was scanned for, as sorted, disjoint, non-adjacent half-open
    /// ranges. Ids are interned in the order tasks bring them, and a blob is scanned for the
    /// terms of the tasks of its own repository, so its ids form a few long runs: a bit set over
    /// every id interned in a long run cost 2.5 KB a blob and most of the cache.
    scanned: Vec<(u32, u32)>,
    /// What was found, sorted by query id; queries scanned for and not found are absent.
    found: Vec<(u32, T)>,
}

impl<T> Default for ScanIndex<T> {
    fn default() -> ScanIndex<T> {
        ScanIndex {
            scanned: Vec::new(),
            found: Vec::new(),
        }
    }
}

impl<T: Clone + Costed> ScanIndex<T> {
    /// Whether the blob was scanned for query `id`.
    pub(crate) fn covers(&self, id: u32) -> bool {
        let after = self.scanned.partition_point(|&(start, _)| start <= id);
        after > 0 && id < self.scanned[after - 1].1
    }

    /// What the scan found for query `id` (absent when not found or not scanned for).
    pub(crate) fn get(&self, id: u32) -> Option<&T> {
        self.found
            .binary_search_by_key(&id, |(found, _)| *found)
            .ok()
            .map(|at| &self.found[at].1)
    }

    /// Everything found, by query id.
    pub(crate) fn found(&self) -> &[(u32, T)] {
        &self.found
    }

    /// This index plus a fresh scan for `ids`, which found `finds` (ids among `ids`).
    pub(crate) fn extended(&self, ids: &[u32], finds: Vec<(u32, T)>) -> ScanIndex<T> {
        let mut ranges: Vec<(u32, u32)> = self.scanned.clone();
        ranges.extend(ids.iter().map(|&id| (id, id + 1)));
        ranges.sort_unstable();
        let mut scanned: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (start, end) in ranges {
            match scanned.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => scanned.push((start, end)),
            }
        }
        scanned.shrink_to_fit();
        let mut found: Vec<(u32, T)> = self
            .found
            .iter()
            .filter(|(id, _)| !ids.contains(id))
            .cloned()
            .collect();
        found.extend(finds);
        found.sort_unstable_by_key(|(id, _)| *id);
        found.shrink_to_fit();
        ScanIndex { scanned, found }
    }

    fn cost(&self) -> usize {
        self.scanned.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.found.capacity() * std::mem::size_of::<(u32, T)>()
            + self
                .found
                .iter()
                .map(|(_, t)| t.heap_bytes())
                .sum::<usize>()
    }
}

/// Which of a blob's scan indexes a kind of result lives in.
pub(crate) trait Indexed: Clone + Costed + Send + Sync + Sized + 'static {
    /// The interned query names of this kind.
    fn names(cache: &mut BlobCache) -> &mut HashMap<Box<str>, u32>;
    /// The blob's index of this kind.
    fn slot(entry: &mut BlobEntry) -> &mut Option<Arc<ScanIndex<Self>>>;
}

// The kinds of scan result the cache keeps per blob: the blob scan's (`blob_scan.rs`) and the
// airtight candidates' near strings (`candidates.rs`). They live here, with the cache that
// stores them, so the cache depends on none of its users.

/// One pattern's matches in one blob.
#[derive(Debug, Clone, Default)]
pub(crate) struct PatternScan {
    /// Lines holding at least one match.
    pub(crate) lines: u32,
    /// The first matching lines: 1-based line number and the byte offset of the match (the
    /// line's text is read only for the hits a report keeps).
    pub(crate) hits: Vec<(u32, usize)>,
}

impl Costed for PatternScan {
    fn heap_bytes(&self) -> usize {
        self.hits.capacity() * std::mem::size_of::<(u32, usize)>()
    }
}

impl Indexed for PatternScan {
    fn names(cache: &mut BlobCache) -> &mut HashMap<Box<str>, u32> {
        &mut cache.term_names
    }

    fn slot(entry: &mut BlobEntry) -> &mut Option<Arc<ScanIndex<PatternScan>>> {
        &mut entry.terms
    }
}

/// One candidate's near strings in one blob: each literal with its line and Jaccard index.
#[derive(Debug, Clone, Default)]
pub(crate) struct NearHits {
    pub(crate) finds: Vec<(Box<str>, u32, f32)>,
}

impl Costed for NearHits {
    fn heap_bytes(&self) -> usize {
        self.finds.capacity() * std::mem::size_of::<(Box<str>, u32, f32)>()
            + self.finds.iter().map(|(l, _, _)| l.len()).sum::<usize>()
    }
}

impl Indexed for NearHits {
    fn names(cache: &mut BlobCache) -> &mut HashMap<Box<str>, u32> {
        &mut cache.near_names
    }

    fn slot(entry: &mut BlobEntry) -> &mut Option<Arc<ScanIndex<NearHits>>> {
        &mut entry.near
    }
}

/// Everything cached about one blob.
#[derive(Debug, Default)]
pub(crate) struct BlobEntry {
    /// `Some(size)` once the blob is known to be binary.
    binary: Option<usize>,
    text: Option<Arc<[u8]>>,
    pub(crate) terms: Option<Arc<ScanIndex<PatternScan>>>,
    pub(crate) near: Option<Arc<ScanIndex<NearHits>>>,
    /// Bytes counted for the text alone, and for everything.
    text_cost: usize,
    cost: usize,
    used: u64,
}

impl BlobEntry {
    fn content(&self) -> Option<BlobText> {
        match (self.binary, &self.text) {
            (Some(size), _) => Some(BlobText::Binary { size }),
            (None, Some(text)) => Some(BlobText::Text(text.clone())),
            (None, None) => None,
        }
    }

    fn recount(&mut self) -> usize {
        self.text_cost = self.text.as_ref().map_or(0, |t| t.len());
        self.cost = ENTRY_OVERHEAD
            + self.text_cost
            + self.terms.as_ref().map_or(0, |i| i.cost())
            + self.near.as_ref().map_or(0, |i| i.cost());
        self.cost
    }
}

/// What a blob scan learns about a blob from one look-up.
#[derive(Debug)]
pub(crate) struct Known<T> {
    /// Its content, if cached.
    pub(crate) content: Option<BlobText>,
    /// Its scan index of the asked kind, if any.
    pub(crate) index: Option<Arc<ScanIndex<T>>>,
}

struct Listing {
    entries: Arc<[TreeEntry]>,
    cost: usize,
    used: u64,
}

/// The cache itself; the engine holds it behind a mutex.
pub(crate) struct BlobCache {
    bound: usize,
    bytes: usize,
    tick: u64,
    /// Bumped by [`BlobCache::clear`], so that a blob scan that began before never stores results
    /// under query ids that no longer mean what they meant.
    generation: u64,
    blobs: OidMap<BlobEntry>,
    listings: HashMap<(Oid, Box<str>), Listing>,
    pub(crate) term_names: HashMap<Box<str>, u32>,
    pub(crate) near_names: HashMap<Box<str>, u32>,
    hits: u64,
    misses: u64,
    evictions: u64,
}

impl std::fmt::Debug for BlobCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobCache")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl BlobCache {
    pub(crate) fn new(bound: usize) -> BlobCache {
        BlobCache {
            bound,
            bytes: 0,
            tick: 0,
            generation: 0,
            blobs: OidMap::default(),
            listings: HashMap::new(),
            term_names: HashMap::new(),
            near_names: HashMap::new(),
            hits: 0,
            misses: 0,
            evictions: 0,
        }
    }

    /// True when the cache keeps anything at all.
    pub(crate) fn enabled(&self) -> bool {
        self.bound > 0
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    fn touch(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// The ids of `queries` of one kind, interning new ones.
    pub(crate) fn intern<T: Indexed>(&mut self, queries: &[String]) -> Vec<u32> {
        let mut added = 0;
        let names = T::names(self);
        let ids = queries
            .iter()
            .map(|query| {
                let next = names.len() as u32;
                *names.entry(query.as_str().into()).or_insert_with(|| {
                    added += query.len() + ENTRY_OVERHEAD / 2;
                    next
                })
            })
            .collect();
        self.bytes += added;
        ids
    }

    /// A blob's content.
    pub(crate) fn get(&mut self, blob: Oid) -> Option<BlobText> {
        let tick = self.touch();
        let found = self.blobs.get_mut(&blob).and_then(|entry| {
            entry.used = tick;
            entry.content()
        });
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    /// A blob's content and its scan index of one kind (not counted as a hit or miss: a
    /// blob scan needs the content only when the index falls short, and counts it then).
    pub(crate) fn known<T: Indexed>(&mut self, blob: Oid) -> Known<T> {
        let tick = self.touch();
        match self.blobs.get_mut(&blob) {
            Some(entry) => {
                entry.used = tick;
                Known {
                    content: entry.content(),
                    index: T::slot(entry).clone(),
                }
            }
            None => Known {
                content: None,
                index: None,
            },
        }
    }

    /// A blob's content, not counted as a hit or miss (a blob scan counts its own).
    pub(crate) fn content(&mut self, blob: Oid) -> Option<BlobText> {
        let tick = self.touch();
        self.blobs.get_mut(&blob).and_then(|entry| {
            entry.used = tick;
            entry.content()
        })
    }

    /// Counts content look-ups a blob scan made through [`BlobCache::known`].
    pub(crate) fn record(&mut self, hits: u64, misses: u64) {
        self.hits += hits;
        self.misses += misses;
    }

    /// Stores a blob's content.
    pub(crate) fn insert(&mut self, blob: Oid, text: BlobText) {
        self.store(blob, Some(text), |_| {});
    }

    /// Stores a blob's content (if given) and its new scan index of one kind, unless the cache
    /// was cleared since the blob scan began (`generation`).
    pub(crate) fn insert_index<T: Indexed>(
        &mut self,
        blob: Oid,
        content: Option<BlobText>,
        index: Arc<ScanIndex<T>>,
        generation: u64,
    ) {
        if generation == self.generation {
            self.store(blob, content, |entry| *T::slot(entry) = Some(index));
        }
    }

    fn store(&mut self, blob: Oid, content: Option<BlobText>, update: impl FnOnce(&mut BlobEntry)) {
        if !self.enabled() {
            return;
        }
        let tick = self.touch();
        let quarter = self.bound / 4;
        let entry = self.blobs.entry(blob).or_default();
        let before = entry.cost;
        match content {
            Some(BlobText::Binary { size }) => entry.binary = Some(size),
            // A blob bigger than a quarter of the bound would evict most of the cache for one
            // file: its scan results are kept, its content is not.
            Some(BlobText::Text(text)) if text.len() <= quarter && entry.text.is_none() => {
                entry.text = Some(text);
            }
            _ => {}
        }
        update(entry);
        entry.used = tick;
        let after = entry.recount();
        self.bytes = self.bytes + after - before;
        if self.bytes > self.bound {
            self.evict();
        }
    }

    /// Evicts down to 90% of the bound, in one batch so that a blob scan over a repository larger
    /// than the bound does not sort on every insert: least recently used contents first, then
    /// least recently used entries and listings whole.
    fn evict(&mut self) {
        let target = self.bound / 10 * 9;
        let mut by_age: Vec<(u64, Oid)> = self
            .blobs
            .iter()
            .filter(|(_, entry)| entry.text.is_some())
            .map(|(oid, entry)| (entry.used, *oid))
            .collect();
        by_age.sort_unstable();
        for (_, oid) in by_age {
            if self.bytes <= target {
                return;
            }
            if let Some(entry) = self.blobs.get_mut(&oid) {
                entry.text = None;
                let before = entry.cost;
                let after = entry.recount();
                self.bytes = self.bytes + after - before;
                self.evictions += 1;
            }
        }
        enum Victim {
            Blob(Oid),
            Listing((Oid, Box<str>)),
        }
        let mut victims: Vec<(u64, Victim)> = self
            .blobs
            .iter()
            .map(|(oid, entry)| (entry.used, Victim::Blob(*oid)))
            .chain(
                self.listings
                    .iter()
                    .map(|(key, listing)| (listing.used, Victim::Listing(key.clone()))),
            )
            .collect();
        victims.sort_unstable_by_key(|(used, _)| *used);
        for (_, victim) in victims {
            if self.bytes <= target {
                return;
            }
            let freed = match victim {
                Victim::Blob(oid) => self.blobs.remove(&oid).map_or(0, |entry| entry.cost),
                Victim::Listing(key) => self.listings.remove(&key).map_or(0, |l| l.cost),
            };
            self.bytes -= freed;
            self.evictions += 1;
        }
    }

    /// The entries of `tree`, whose path from the repository root is `prefix`.
    pub(crate) fn listing(&mut self, tree: Oid, prefix: &str) -> Option<Arc<[TreeEntry]>> {
        let tick = self.touch();
        let listing = self.listings.get_mut(&(tree, prefix.into()))?;
        listing.used = tick;
        Some(listing.entries.clone())
    }

    /// Whether the entries of `tree` at `prefix` are cached (not counted as a use).
    pub(crate) fn has_listing(&self, tree: Oid, prefix: &str) -> bool {
        self.listings.contains_key(&(tree, prefix.into()))
    }

    /// Stores the entries of `tree` at `prefix` (its own files and folders, not what lies
    /// below them: a file is held once, by its folder's listing); `path_bytes` counts their
    /// paths.
    pub(crate) fn insert_listing(
        &mut self,
        tree: Oid,
        prefix: &str,
        entries: Arc<[TreeEntry]>,
        path_bytes: usize,
    ) {
        if !self.enabled() {
            return;
        }
        let cost = ENTRY_OVERHEAD
            + prefix.len()
            + entries.len() * std::mem::size_of::<TreeEntry>()
            + path_bytes;
        let used = self.touch();
        let listing = Listing {
            entries,
            cost,
            used,
        };
        if let Some(old) = self.listings.insert((tree, prefix.into()), listing) {
            self.bytes -= old.cost;
        }
        self.bytes += cost;
        if self.bytes > self.bound {
            self.evict();
        }
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            blobs: self
                .blobs
                .values()
                .filter(|entry| entry.content().is_some())
                .count(),
            bytes: self.bytes,
            bound: self.bound,
            hits: self.hits,
            misses: self.misses,
            evictions: self.evictions,
            listings: self.listings.len(),
            content_bytes: self.blobs.values().map(|entry| entry.text_cost).sum(),
            listing_bytes: self.listings.values().map(|listing| listing.cost).sum(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.blobs.clear();
        self.listings.clear();
        self.term_names.clear();
        self.near_names.clear();
        self.bytes = 0;
        self.generation += 1;
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
        let mut cache = BlobCache::new(2000);
        for n in 0..10u8 {
            cache.insert(oid(n), BlobText::Text(Arc::from(vec![b'x'; 136])));
        }
        let stats = cache.stats();
        assert!(
            stats.bytes <= 2000,
            "the cache never holds more than its bound"
        );
        assert!(
            cache.get(oid(0)).is_none(),
            "the oldest blob is evicted first"
        );
        assert!(cache.get(oid(9)).is_some(), "the newest blob is kept");
    }

    #[test]
    fn contents_go_before_scan_results() {
        let mut cache = BlobCache::new(4000);
        let ids = cache.intern::<PatternScan>(&["term".to_string()]);
        for n in 0..10u8 {
            let index = ScanIndex::default().extended(&ids, Vec::new());
            cache.insert_index::<PatternScan>(
                oid(n),
                Some(BlobText::Text(Arc::from(vec![b'x'; 300]))),
                Arc::new(index),
                cache.generation(),
            );
        }
        assert!(cache.stats().bytes <= 4000, "{:?}", cache.stats());
        let oldest = cache.known::<PatternScan>(oid(0));
        assert!(oldest.content.is_none(), "the oldest content is evicted");
        assert!(
            oldest.index.is_some_and(|index| index.covers(ids[0])),
            "while its scan result is kept"
        );
    }

    #[test]
    fn an_index_records_what_was_scanned_and_found() {
        let empty: ScanIndex<PatternScan> = ScanIndex::default();
        let first = empty.extended(&[3, 70], vec![(70, PatternScan::default())]);
        assert!(first.covers(3) && first.covers(70) && !first.covers(4));
        assert!(!first.covers(0) && !first.covers(2) && !first.covers(71));
        let runs = first.extended(&[4, 5, 6, 69, 2], Vec::new());
        assert_eq!(runs.scanned, vec![(2, 7), (69, 71)], "adjacent ids merge");
        assert!((2..7).chain(69..71).all(|id| runs.covers(id)));
        assert!(!runs.covers(7) && !runs.covers(68) && !runs.covers(1));
        assert!(first.get(3).is_none() && first.get(70).is_some());
        let second = first.extended(&[3], vec![(3, PatternScan::default())]);
        assert_eq!(
            second.found().iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            vec![3, 70],
            "rescanned ids are replaced, others kept, in id order"
        );
    }

    #[test]
    fn an_index_costs_its_runs_of_ids_not_every_id_interned() {
        let mut index: ScanIndex<PatternScan> = ScanIndex::default();
        for task in 0..100u32 {
            let ids: Vec<u32> = (task * 40 + 20_000..task * 40 + 20_040).collect();
            index = index.extended(&ids, Vec::new());
        }
        assert!(index.covers(20_000) && index.covers(23_999) && !index.covers(24_000));
        assert!(
            index.cost() <= 2 * std::mem::size_of::<(u32, u32)>(),
            "4,000 ids scanned in one run cost {} bytes",
            index.cost()
        );
    }

    #[test]
    fn a_listing_counts_its_own_entries_only() {
        let mut cache = BlobCache::new(1 << 20);
        let file = |path: &str| {
            TreeEntry::File(crate::paths::FileEntry {
                path: path.into(),
                blob: oid(9),
                class: crate::paths::PathClass::Live,
            })
        };
        let entries: Arc<[TreeEntry]> =
            vec![file("a/x.py"), TreeEntry::Folder(oid(3), "a/b/".into())].into();
        let before = cache.stats().bytes;
        cache.insert_listing(oid(2), "a/", entries, "a/x.py".len() + "a/b/".len());
        assert_eq!(
            cache.stats().listing_bytes,
            ENTRY_OVERHEAD + "a/".len() + 2 * std::mem::size_of::<TreeEntry>() + 10
        );
        assert_eq!(cache.stats().bytes - before, cache.stats().listing_bytes);
        assert!(cache.has_listing(oid(2), "a/") && !cache.has_listing(oid(2), "b/"));
    }

    #[test]
    fn results_from_before_a_clear_are_dropped() {
        let mut cache = BlobCache::new(1 << 20);
        let generation = cache.generation();
        cache.clear();
        cache.insert_index::<PatternScan>(oid(1), None, Arc::new(ScanIndex::default()), generation);
        assert!(cache.known::<PatternScan>(oid(1)).index.is_none());
    }

    #[test]
    fn disabled_cache_keeps_nothing() {
        let mut cache = BlobCache::new(0);
        cache.insert(oid(1), BlobText::Binary { size: 3 });
        assert!(cache.get(oid(1)).is_none());
    }
}

//! The evidence engine: its options and its bounded cache. Its operations live beside their
//! code: `pipeline.rs` (evidence reports, precedents) and `grep.rs` (search, files).

use std::sync::Mutex;

use super::blobs::{self, CacheStats};

/// Version of the evidence engine; the store keys its evidence cache on it, so a change to
/// term extraction, classification, path rules or what the near-string search covers must bump
/// it.
pub const ENGINE_VERSION: &str = "evidence-4";

/// Options of an [`Engine`]; build one with [`Engine::builder`].
#[derive(Debug, Clone)]
pub struct EngineBuilder {
    threads: usize,
    cache_bytes: usize,
    max_hits: usize,
    max_nearest: usize,
}

impl Default for EngineBuilder {
    fn default() -> EngineBuilder {
        EngineBuilder {
            threads: 2,
            cache_bytes: 64 << 20,
            max_hits: 5,
            max_nearest: 3,
        }
    }
}

impl EngineBuilder {
    /// Worker threads for a blob scan (at least 1; default 2).
    pub fn threads(&mut self, threads: usize) -> &mut EngineBuilder {
        self.threads = threads.max(1);
        self
    }

    /// Memory bound in bytes for everything the engine caches: blob contents, per-blob scan
    /// results, each tree's own entries (default 64 MiB; 0 disables the cache). Contents are
    /// evicted first, least recently used first. The process holds more than the bound: what
    /// one blob scan has in flight, the allocator's overhead, the clone's mapped pack files. Over
    /// 418 SWE-bench Pro tasks of six repositories `verity evidence --all` peaked at 219 MB with
    /// the default bound (97 MB with the cache off); with a 256 MiB bound, flattened listings
    /// and glibc's default malloc settings it had peaked at 465 MB.
    pub fn cache_bytes(&mut self, bytes: usize) -> &mut EngineBuilder {
        self.cache_bytes = bytes;
        self
    }

    /// How many hits a report keeps per term (default 5).
    pub fn max_hits(&mut self, hits: usize) -> &mut EngineBuilder {
        self.max_hits = hits;
        self
    }

    /// How many nearest live strings an airtight candidate lists (default 3).
    pub fn max_nearest(&mut self, nearest: usize) -> &mut EngineBuilder {
        self.max_nearest = nearest;
        self
    }

    /// The engine, with empty caches.
    pub fn build(&self) -> Engine {
        Engine {
            threads: self.threads,
            max_hits: self.max_hits,
            max_nearest: self.max_nearest,
            cache: Mutex::new(blobs::BlobCache::new(self.cache_bytes)),
        }
    }
}

/// The evidence engine: keep one alive across tasks so that its cache serves nearby commits
/// and tasks sharing terms. It is `Send + Sync`; concurrent calls share the cache.
#[derive(Debug)]
pub struct Engine {
    pub(super) threads: usize,
    pub(super) max_hits: usize,
    pub(super) max_nearest: usize,
    cache: Mutex<blobs::BlobCache>,
}

impl Default for Engine {
    fn default() -> Engine {
        EngineBuilder::default().build()
    }
}

impl Engine {
    /// Options for a new engine.
    pub fn builder() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// Sizes and hit counts of the engine's caches.
    pub fn cache_stats(&self) -> CacheStats {
        self.lock_cache().stats()
    }

    /// Empties the caches (for example after the user deletes a clone).
    pub fn clear_cache(&self) {
        self.lock_cache().clear();
    }

    pub(super) fn lock_cache(&self) -> std::sync::MutexGuard<'_, blobs::BlobCache> {
        // A panic while holding the lock leaves a cache that is still consistent (entries are
        // inserted whole), so a poisoned lock is safe to reuse.
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

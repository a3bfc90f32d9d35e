//! Large texts stored compressed: a case's content, what a source said about it, an evidence
//! report. Each is one zstd frame in a BLOB, compressed alone, so any row reads by itself.
//!
//! No dictionary: one trained on a project's own rows (`examples/zstd_dictionary.rs`, run by
//! `bench/scale.sh`) makes SWE-bench Pro's rows 4.6% smaller and their patches 3.2%, and
//! compresses them at 0.8 times the speed. Every frame made with it would need it for ever, and
//! a later import of other tasks would want another. Files written before compression hold the
//! same texts as TEXT; both read alike.

use std::cell::RefCell;
use std::path::Path;

use rusqlite::types::ValueRef;
use zstd::bulk::{Compressor, Decompressor};

use super::StoreError;
use verity_task::case::Encoded;

/// zstd's fastest regular level: a task row compresses at several times the speed it is
/// parsed, and only 4% larger than at the default level 3.
const LEVEL: i32 = 1;

thread_local! {
    /// One compression context per thread, made once: making one costs as much as
    /// compressing a small row.
    static COMPRESSOR: RefCell<Option<Compressor<'static>>> = const { RefCell::new(None) };
    /// One decompression context per thread, for the same reason: making one took a third of
    /// reading a task back.
    static DECOMPRESSOR: RefCell<Option<Decompressor<'static>>> = const { RefCell::new(None) };
}

/// The largest content a frame may declare to be decompressed in one piece; a larger (or
/// undeclared) size is decompressed as a stream.
const WHOLE: u64 = 1 << 30;

/// A frame's content: in one piece when the frame declares its size (as [`pack`]'s do), with
/// the thread's context; otherwise as a stream.
fn decompress(frame: &[u8]) -> std::io::Result<Vec<u8>> {
    match zstd::zstd_safe::get_frame_content_size(frame) {
        Ok(Some(size)) if size <= WHOLE => DECOMPRESSOR.with_borrow_mut(|slot| {
            let decompressor = match slot {
                Some(decompressor) => decompressor,
                None => slot.insert(Decompressor::new()?),
            };
            decompressor.decompress(frame, size as usize)
        }),
        _ => zstd::stream::decode_all(frame),
    }
}

/// The frame stored for `text`, which is `what` of the project at `path`.
pub(crate) fn pack(path: &Path, what: &'static str, text: &str) -> Result<Vec<u8>, StoreError> {
    let failed = |e: std::io::Error| {
        StoreError::Rule(format!(
            "project {}: could not compress {what}: {e}",
            path.display()
        ))
    };
    COMPRESSOR.with_borrow_mut(|slot| {
        let compressor = match slot {
            Some(compressor) => compressor,
            None => slot.insert(Compressor::new(LEVEL).map_err(failed)?),
        };
        compressor.compress(text.as_bytes()).map_err(failed)
    })
}

/// Compresses `encoded`'s JSON ahead of storing it, on the caller's thread. A failure leaves
/// it to be compressed, and told, where it is stored.
pub fn pack_ahead<T>(encoded: &mut Encoded<T>) {
    encoded.packed = pack(Path::new(""), "case record", &encoded.json).ok();
}

/// The text of a stored value: a frame, or the TEXT written before compression.
pub(crate) fn unpack(
    path: &Path,
    what: &'static str,
    value: ValueRef<'_>,
) -> Result<String, StoreError> {
    let damaged = |reason: String| StoreError::Damaged {
        path: path.to_path_buf(),
        what,
        reason,
    };
    match value {
        ValueRef::Text(text) => {
            String::from_utf8(text.to_vec()).map_err(|_| damaged("it is not UTF-8".into()))
        }
        ValueRef::Blob(frame) => {
            let bytes = decompress(frame).map_err(|e| damaged(e.to_string()))?;
            String::from_utf8(bytes)
                .map_err(|_| damaged("it is not UTF-8 once decompressed".into()))
        }
        other => Err(damaged(format!("it holds {:?}", other.data_type()))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_packed_text_and_a_plain_one_read_alike() {
        let text = "{\"patch\": \"diff --git a/x b/x\"}".repeat(50);
        let path = Path::new("p.verity");
        let frame = pack(path, "case", &text).unwrap();
        assert!(frame.len() < text.len() / 10, "a repetitive text shrinks");
        assert_eq!(unpack(path, "case", ValueRef::Blob(&frame)).unwrap(), text);
        assert_eq!(
            unpack(path, "case", ValueRef::Text(text.as_bytes())).unwrap(),
            text
        );
    }

    #[test]
    fn a_damaged_frame_is_named_not_read() {
        let mut frame = pack(Path::new("p.verity"), "case", &"abc".repeat(100)).unwrap();
        frame.truncate(frame.len() / 2);
        let err = unpack(Path::new("p.verity"), "case", ValueRef::Blob(&frame)).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("project p.verity: stored case cannot be read:"),
            "{message}"
        );
    }
}

//! Where a project lives: a file, or a PostgreSQL database named by a `postgres://` URL; the
//! backend is chosen from the location.

use std::path::Path;

use crate::sqlite::Store;
use crate::{ProjectStore, StoreError, postgres};

/// Creates a project at `location`: a new file, or the schema in an existing PostgreSQL
/// database when `location` is a `postgres://` URL (with `password`, if given, to connect).
pub fn create(
    location: &Path,
    password: Option<&str>,
) -> Result<Box<dyn ProjectStore>, StoreError> {
    Ok(match server_url(location) {
        Some(url) => Box::new(postgres::PgStore::create(url, password)?),
        None => Box::new(Store::create(location)?),
    })
}

/// Opens the project at `location`: a file, or a `postgres://` URL.
pub fn open(location: &Path, password: Option<&str>) -> Result<Box<dyn ProjectStore>, StoreError> {
    Ok(match server_url(location) {
        Some(url) => Box::new(postgres::PgStore::open(url, password)?),
        None => Box::new(Store::open(location)?),
    })
}

/// The URL, when `location` names a server project.
fn server_url(location: &Path) -> Option<&str> {
    location.to_str().filter(|s| postgres::is_server_url(s))
}

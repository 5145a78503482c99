//! Small filesystem helpers shared by the loaders.

use std::io;
use std::path::{Path, PathBuf};

/// Files directly inside `dir` whose extension is `extension`, sorted by
/// path so loading order (and so every diagnostic and id) is deterministic.
pub(crate) fn files_with_extension(dir: &Path, extension: &str) -> io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == extension) {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}
